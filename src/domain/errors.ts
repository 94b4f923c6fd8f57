/**
 * The closed set of error reasons the service answers with (decisions §3).
 * Which HTTP status each one gets is decided in one place: the HTTP error handler.
 */
export type ErrorCode =
  | 'validation_error'
  | 'unsupported_carrier'
  | 'unauthorized'
  | 'not_found'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal_error'

export interface FieldError {
  field: string
  message: string
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: FieldError[] = [],
  ) {
    super(message)
    this.name = 'AppError'
  }
}

/** A one-line summary of field errors, for `msg` and batch item messages. */
export function describeFieldErrors(details: FieldError[]): string {
  return details.map((d) => (d.field ? `${d.field} ${d.message}` : d.message)).join('; ')
}
