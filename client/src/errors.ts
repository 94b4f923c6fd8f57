import type { components } from './api.js'

/** The reason of a failed request, as the API names it (docs/api.md, "Errors"). */
export type ErrorReason = components['schemas']['ErrorReason']
type ErrorData = components['schemas']['Error']['data']

/** A request the API refused or could not serve: its error envelope, typed. */
export class TrackingApiError extends Error {
  override readonly name = 'TrackingApiError'
  /** The HTTP status (equal to the envelope's `code`). */
  readonly status: number
  /** Why: `validation_error`, `not_found`, `rate_limited`… */
  readonly reason: ErrorReason
  /** With validation_error: each field or parameter to blame. */
  readonly details: NonNullable<ErrorData['details']>
  /** The rest of the envelope's data (`candidates` with carrier_not_detected, `taskId` with conflict). */
  readonly data: ErrorData
  /** The X-Request-Id of the answer, to find it in the service's logs. */
  readonly requestId: string | undefined

  constructor(status: number, body: unknown, requestId: string | undefined) {
    const envelope = isEnvelope(body) ? body : undefined
    const data: ErrorData = envelope?.data ?? { error: status >= 500 ? 'internal_error' : 'validation_error' }
    super(envelope?.msg ?? `HTTP ${status} without the API's error envelope`)
    this.status = status
    this.reason = data.error
    this.details = data.details ?? []
    this.data = data
    this.requestId = requestId
  }
}

function isEnvelope(body: unknown): body is components['schemas']['Error'] {
  const data = (body as { data?: { error?: unknown } } | null)?.data
  return typeof body === 'object' && body !== null && typeof data?.error === 'string'
}
