import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, BODY_FIELD, invalid, type ErrorCode } from '../domain/errors'
import { envelope } from './envelope'
import { ParameterError } from './parameters'
import { fieldErrors } from './request-check'

/** The one place where an error reason becomes an HTTP status (docs/api.md, Errors). */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  validation_error: 400,
  unsupported_carrier: 400,
  carrier_not_detected: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  limit_reached: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  internal_error: 500,
}

export function errorEnvelope(error: AppError) {
  return envelope(HTTP_STATUS[error.code], { error: error.code, ...(error.details.length > 0 ? { details: error.details } : {}), ...error.data }, error.message)
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  // Both say when to come back: a rate limit's bucket refills, a database failure is usually brief.
  if ((error.code === 'rate_limited' || error.code === 'unavailable') && !reply.hasHeader('retry-after'))
    reply.header('retry-after', String(error.retryAfterSeconds ?? 1))
  const body = errorEnvelope(error)
  return reply.code(body.code).send(body)
}

/** Maps anything thrown while serving a request onto the closed set of reasons. */
export function classify(error: FastifyError | AppError | Error): AppError {
  if (error instanceof AppError) return error
  if (error instanceof ParameterError) return invalid(error.details)
  const fastifyError = error as FastifyError & { validationContext?: string }
  if (fastifyError.validation) return invalid(fieldErrors(fastifyError.validation as unknown as Parameters<typeof fieldErrors>[0]))
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'the request body is larger than 1 MiB')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)')
  }
  if (error instanceof SyntaxError || fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new AppError('validation_error', 'the request body is not valid JSON', [{ field: BODY_FIELD, message: 'must be valid JSON' }])
  }
  if (fastifyError.code === 'FST_ERR_BAD_URL') return new AppError('validation_error', 'the URL is not valid (bad percent-encoding)')
  const status = fastifyError.statusCode ?? 500
  if (status === 404) return new AppError('not_found', 'not found')
  if (status === 413) return new AppError('payload_too_large', 'the request body is larger than 1 MiB')
  if (status === 415) return new AppError('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)')
  if (status >= 400 && status < 500) return new AppError('validation_error', 'the request is malformed')
  return new AppError('internal_error', 'internal error')
}

/** What the database itself said (PostgreSQL's message, a socket's error), for the log. */
function causeOf(error: Error): string | undefined {
  return error.cause instanceof Error ? error.cause.message : undefined
}

/** For errors Fastify raises before routing (a URL it cannot decode): the same envelope. */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void sendError(reply, classify(error))
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = classify(error)
    if (appError.code === 'internal_error') request.log.error({ err: error }, 'request failed')
    else if (appError.code === 'unavailable') request.log.warn({ reason: error.message, cause: causeOf(error) }, 'database unavailable')
    return sendError(reply, appError)
  })
  app.setNotFoundHandler((_request, reply) => sendError(reply, new AppError('not_found', 'no such route')))
}
