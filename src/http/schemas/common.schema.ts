import { Type, type SchemaOptions, type Static, type TSchema } from '@sinclair/typebox'
import { ERROR_CODES } from '../../domain/errors'

/**
 * Building blocks of the HTTP schemas. Schemas with a name are OpenAPI components: made with
 * `component`, registered once with Fastify (components.ts) and used through `ref`, so the
 * document says `$ref: '#/components/schemas/Task'` where a generated client wants a named type.
 */

const components: TSchema[] = []

/** A named schema (an OpenAPI component). */
export function component<T extends TSchema>(id: string, schema: T): T {
  const named = { ...schema, $id: id } as T
  components.push(named)
  return named
}

/** Every component made so far, for registration (components.ts imports every schema module first). */
export function allComponents(): readonly TSchema[] {
  return components
}

/** A reference to a component, typed as the component. */
export function ref<T extends TSchema>(schema: T, options: SchemaOptions = {}) {
  return Type.Unsafe<Static<T>>({ ...Type.Ref(schema.$id!), ...options })
}

/** A string from a closed list (a domain constant): `enum` in the document, a union in TypeScript. */
export function stringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}

export const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 in UTC with milliseconds and a Z' })
export const NullableDateTime = Type.Union([DateTime, Type.Null()])
export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })

/** The envelope of every answer: `{code, data, msg}`; the HTTP status equals `code`. */
export function envelope<T extends TSchema>(data: T, description: string) {
  return Type.Object(
    {
      code: Type.Literal(200, { description: 'the HTTP status' }),
      data,
      msg: Type.Literal('success'),
    },
    { description },
  )
}

export const ErrorReason = component('ErrorReason', stringEnum(ERROR_CODES, { description: 'why the request failed (docs/api.md, Errors)' }))

export const FieldProblem = component(
  'FieldProblem',
  Type.Object({
    field: Type.String({ description: 'the field or parameter to blame; "" for the request as a whole' }),
    message: Type.String(),
  }),
)

/** A carrier a tracking number may belong to (GET /openapi/carriers/detect, carrier_not_detected). */
export const CarrierCandidate = component(
  'CarrierCandidate',
  Type.Object({
    carrierCode: Type.String({ examples: ['FEDEX'] }),
    format: Type.String({ description: 'the name of the format that matched' }),
    confidence: stringEnum(['high', 'medium', 'low'] as const, {
      description:
        'high: pattern and check digit hold; medium: the pattern holds and the format has no check digit; low: the pattern holds, its check digit does not',
    }),
    available: Type.Boolean({ description: 'the service can track this carrier' }),
  }),
)

export const ErrorEnvelope = component(
  'Error',
  Type.Object(
    {
      code: Type.Integer({ description: 'equals the HTTP status', examples: [400] }),
      data: Type.Object({
        error: ref(ErrorReason),
        details: Type.Optional(Type.Array(ref(FieldProblem))),
        candidates: Type.Optional(Type.Array(ref(CarrierCandidate), { description: 'with carrier_not_detected: what detection found, best first' })),
        taskId: Type.Optional(Type.Integer({ minimum: 1, description: 'with conflict: the task that already tracks the number with that carrier' })),
      }),
      msg: Type.String({ description: 'a one-line explanation' }),
    },
    { description: 'a failed request' },
  ),
)

const ERROR_STATUSES = {
  400: 'validation_error: a field, parameter or body is not as documented (details name each); unsupported_carrier; carrier_not_detected (AUTO)',
  401: 'unauthorized: no, unknown or revoked token',
  404: 'not_found: no such resource for this caller (another user\u2019s is answered the same)',
  409: 'limit_reached: the account or the task is at a limit (at most 10 webhook endpoints, 5 carrier changes a task); conflict: another task of the caller already tracks the number with that carrier (data.taskId names it)',
  413: 'payload_too_large: the body is over 1 MiB',
  415: 'unsupported_media_type: the body is not application/json',
  429: 'rate_limited: too many requests; Retry-After says when to try again',
  500: 'internal_error: an unexpected failure (logged with the request id)',
  503: 'unavailable: the database cannot serve the request now (unreachable, restarting, out of disk space, or no answer within its deadline); Retry-After says when to try again',
} as const

export type ErrorStatus = keyof typeof ERROR_STATUSES

const RetryAfter = { 'retry-after': Type.Integer({ minimum: 1, description: 'seconds to wait before trying again' }) }

/** The error answers of an operation: the statuses it can give, each the Error envelope. */
export function errors(...statuses: ErrorStatus[]) {
  const responses: Record<number, TSchema> = {}
  for (const status of new Set<ErrorStatus>([...statuses, 500, 503])) {
    responses[status] = ref(ErrorEnvelope, { description: ERROR_STATUSES[status], ...(status === 429 || status === 503 ? { headers: RetryAfter } : {}) })
  }
  return responses as Record<ErrorStatus, ReturnType<typeof ref<typeof ErrorEnvelope>>>
}

/** The errors every authenticated API operation can give, besides its own. */
export const API_ERRORS: ErrorStatus[] = [401, 429]
/** …and those of an operation with a JSON body. */
export const BODY_ERRORS: ErrorStatus[] = [400, 413, 415]
