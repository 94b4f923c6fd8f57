/**
 * The closed set of error reasons the service answers with (docs/api.md, "Errors"). Which HTTP
 * status each one gets is decided in one place: the HTTP error handler.
 */
export const ERROR_CODES = [
  'validation_error',
  'unsupported_carrier',
  'carrier_not_detected',
  'unauthorized',
  'forbidden',
  'not_found',
  'limit_reached',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'unavailable',
  'internal_error',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

export interface FieldError {
  field: string
  message: string
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: FieldError[] = [],
    /** For rate_limited and unavailable: when the caller may try again (the Retry-After header). */
    readonly retryAfterSeconds?: number,
    /** More of what the caller should know, beside `error` and `details` in the envelope's data. */
    readonly data?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'AppError'
  }
}

/** A task the caller asked for that is not theirs or not there: the one answer for both. */
export const subscriptionNotFound = () => new AppError('not_found', 'subscription not found')

/** A validation_error whose message is the summary of its field problems. */
export function invalid(details: FieldError[]): AppError {
  return new AppError('validation_error', describeFieldErrors(details), details)
}

/** A one-line summary of field errors, for `msg` and batch item messages. */
export function describeFieldErrors(details: FieldError[]): string {
  return details.map((d) => (d.field ? `${d.field} ${d.message}` : d.message)).join('; ')
}

/**
 * How every validation message is worded, on every endpoint: the domain's own checks and the
 * HTTP schemas' both speak these words.
 */
export const MUST = {
  required: 'is required',
  string: 'must be a string',
  integer: 'must be an integer',
  positiveInteger: 'must be a positive integer',
  boolean: 'must be true or false',
  object: 'must be a JSON object',
  array: 'must be an array',
  dateTime: 'must be an ISO 8601 date-time with a time zone (2026-11-24T09:30:00Z)',
  date: 'must be a calendar day, YYYY-MM-DD (2026-11-24)',
  dateTimeSpace: 'must be an ISO 8601 date-time with a time zone: a "+" in a query string reads as a space, so send an offset as %2B01:00 (or use Z)',
  url: 'must be an absolute http or https URL',
  unknownField: 'is not a known field',
  unknownParameter: 'is not a known parameter',
  repeated: 'must be given once',
  wellFormed: 'must be well-formed unicode',
  notEmpty: 'must not be empty',
  atMost: (n: number, what = 'characters') => `must be at most ${n} ${what}`,
  atLeast: (n: number, what = 'characters') => `must be at least ${n} ${what}`,
  between: (min: number, max: number) => `must be an integer from ${min} to ${max}`,
  atLeastItems: (n: number) => `must hold at least ${n} item${n === 1 ? '' : 's'}`,
  distinct: (first: number, second: number) => `must not repeat a value (items ${first} and ${second} are the same)`,
  oneOf: (values: readonly string[]) => `must be one of ${values.join(', ')}`,
  // Quoted, so that an empty item (`a,,b`, a trailing comma) shows as "" rather than as nothing.
  listOf: (values: readonly string[], wrong: readonly string[]) =>
    `must be a comma-separated list of ${values.join(', ')} (not ${wrong.map((v) => JSON.stringify(v)).join(', ')})`,
} as const

/** The request body as a whole, in a FieldError. */
export const BODY_FIELD = ''
