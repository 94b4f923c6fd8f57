import { normalizeCarrierCode, type CarrierCandidate, type CarrierResolver } from './carriers'
import { BODY_FIELD, MUST, type FieldError } from './errors'
import { parseRecipient, type Recipient } from './notifications'

/**
 * Input rules of a subscription (docs/api.md, "Input rules") that a schema cannot say, shared by
 * single and batch subscribe so that an item is judged the same way in both. The request's shape
 * (an object; each field's type, presence and length) is its HTTP schema's, compiled and run
 * before this (http/schemas/subscription.schema.ts): what it refused comes in beside the body, each
 * field once, and is reported with what is judged here, field by field, so that every problem is
 * told at once and a batch item fails alone.
 */

export const TRACKING_NUMBER_MAX = 64
export const CALLBACK_URL_MAX = 2048
export const EXTERNAL_REFERENCE_MAX = 128

/** The fields of a subscription, in the order their problems are reported. */
export const SUBSCRIPTION_FIELDS = ['carrierCode', 'trackingNumber', 'callbackUrl', 'externalReferenceNo', 'recipient'] as const

export interface SubscriptionRequest {
  carrierCode: string
  trackingNumber: string
  callbackUrl: string
  externalReferenceNo: string
  /**
   * The shop's customer (docs/notifications.md): undefined when the request did not name one (the
   * task keeps its own), null to remove it.
   */
  recipient?: Recipient | null
}

/** A subscription as its schema judged it: the body, and the schema's problems (a field's first, each). */
export interface CheckedSubscription {
  body: unknown
  refused: readonly FieldError[]
}

export type SubscriptionValidation =
  | { ok: true; value: SubscriptionRequest }
  | {
      ok: false
      error: 'validation_error' | 'unsupported_carrier' | 'carrier_not_detected'
      details: FieldError[]
      /** For carrier_not_detected: what detection found. */
      candidates?: CarrierCandidate[]
      /** Echoed back in batch results: the normalised value when it was a string, else "". */
      carrierCode: string
      trackingNumber: string
    }

// Control characters (C0, DEL, C1) and invisible format characters (zero-width space, BOM, bidi
// overrides...) never belong in identifiers or URLs; NUL would not even fit a PostgreSQL text.
const CONTROL = /[\p{Cc}\p{Cf}]/u
const WHITESPACE_OR_CONTROL = /[\s\p{Cc}\p{Cf}]/u

function length(value: string): number {
  // Count code points, so that a limit means the same for "é" and "😀".
  let n = 0
  for (const _ of value) n++
  return n
}

/** A value a schema has not typed (a query parameter's): present, a string, well-formed. */
function stringProblem(value: unknown): string | undefined {
  if (value === undefined) return MUST.required
  if (typeof value !== 'string') return MUST.string
  return wellFormedProblem(value)
}

/** Trims and checks a tracking number; used by subscribe, batch and query alike. */
export function parseTrackingNumber(value: unknown): { ok: true; value: string } | { ok: false; message: string } {
  const problem = stringProblem(value)
  if (problem) return { ok: false, message: problem }
  const trimmed = (value as string).trim()
  if (trimmed.length === 0) return { ok: false, message: MUST.notEmpty }
  if (length(trimmed) > TRACKING_NUMBER_MAX) return { ok: false, message: MUST.atMost(TRACKING_NUMBER_MAX) }
  if (WHITESPACE_OR_CONTROL.test(trimmed)) return { ok: false, message: 'must not contain whitespace or control characters' }
  return { ok: true, value: trimmed }
}

function wellFormedProblem(value: string): string | undefined {
  // A lone surrogate cannot be stored as UTF-8; it would silently become U+FFFD.
  return value.isWellFormed() ? undefined : MUST.wellFormed
}

// The items of a batch usually share one callback URL: the last URL judged, and its verdict.
// Parsing it once per batch instead of per item took 3.6 % of the API thread off a PostgreSQL
// batch load (the API process's CPU per item about 8 % lower; items/s alike within noise).
let lastUrl: string | undefined
let lastUrlProblem: string | undefined

/** What is wrong with a callback (or endpoint) URL's text, if anything; its length is its schema's. */
export function callbackUrlProblem(value: string): string | undefined {
  if (value === lastUrl) return lastUrlProblem
  const problem = judgeCallbackUrl(value)
  lastUrl = value
  lastUrlProblem = problem
  return problem
}

function judgeCallbackUrl(raw: string): string | undefined {
  const problem = wellFormedProblem(raw)
  if (problem) return problem
  if (raw.length === 0) return MUST.notEmpty
  // The URL parser silently drops tabs and newlines; refuse them instead of storing a URL that
  // is not the one the receiver will be called at.
  if (WHITESPACE_OR_CONTROL.test(raw)) return 'must not contain whitespace or control characters'
  // WHATWG parsing forgives "http:/host" and "http:host"; a callback URL is written out in full.
  if (!/^https?:\/\//i.test(raw)) return MUST.url
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return MUST.url
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return MUST.url
  if (!url.hostname) return 'must have a host'
  return undefined
}

/** What is wrong with an external reference's text, if anything (its type and length are its schema's). */
export function externalReferenceProblem(raw: string): string | undefined {
  return wellFormedProblem(raw) ?? (CONTROL.test(raw) ? 'must not contain control characters' : undefined)
}

type Fields = Partial<Record<(typeof SUBSCRIPTION_FIELDS)[number], unknown>>

/** A field the schema refused keeps the schema's words; the others are judged here. */
function refusedOf(refused: readonly FieldError[], field: string): string | undefined {
  for (const problem of refused) if (problem.field === field) return problem.message
  return undefined
}

/**
 * Judges a subscription its schema has checked: each field the schema did not refuse has the type
 * it says (a string; externalReferenceNo a string, null or absent), and is judged here for what a
 * schema cannot say: trimmed values, whitespace and control characters, well-formed unicode, a
 * URL's scheme and host. Then the carrier, on a well-formed request only.
 */
export function validateSubscription({ body, refused }: CheckedSubscription, resolveCarrier: CarrierResolver): SubscriptionValidation {
  const whole = refusedOf(refused, BODY_FIELD)
  if (whole !== undefined)
    return { ok: false, error: 'validation_error', details: [{ field: BODY_FIELD, message: whole }], carrierCode: '', trackingNumber: '' }
  const item = body as Fields
  const details: FieldError[] = []

  // Echoed back in batch results when the item fails: each value normalised when it is a string.
  const carrierCode = typeof item.carrierCode === 'string' ? normalizeCarrierCode(item.carrierCode) : ''
  const rawNumber = typeof item.trackingNumber === 'string' ? item.trackingNumber : undefined
  const trackingNumber = rawNumber?.trim() ?? ''
  const carrierProblem = refusedOf(refused, 'carrierCode') ?? wellFormedProblem(item.carrierCode as string) ?? (carrierCode === '' ? MUST.notEmpty : undefined)
  if (carrierProblem) details.push({ field: 'carrierCode', message: carrierProblem })
  const number = refusedOf(refused, 'trackingNumber') ?? parseTrackingNumber(rawNumber)
  if (typeof number === 'string' || !number.ok) details.push({ field: 'trackingNumber', message: typeof number === 'string' ? number : number.message })
  const urlProblem = refusedOf(refused, 'callbackUrl') ?? callbackUrlProblem(item.callbackUrl as string)
  if (urlProblem) details.push({ field: 'callbackUrl', message: urlProblem })
  const reference = item.externalReferenceNo
  const referenceProblem = refusedOf(refused, 'externalReferenceNo') ?? (typeof reference === 'string' ? externalReferenceProblem(reference) : undefined)
  if (referenceProblem) details.push({ field: 'externalReferenceNo', message: referenceProblem })
  let recipient: Recipient | null | undefined
  const recipientRefused = refused.filter((r) => r.field === 'recipient' || r.field.startsWith('recipient.'))
  if (recipientRefused.length > 0) details.push(...recipientRefused)
  else if (item.recipient !== undefined && item.recipient !== null) {
    const parsed = parseRecipient(item.recipient as Parameters<typeof parseRecipient>[0])
    if (parsed.ok) recipient = parsed.value
    else details.push(...parsed.details)
  } else recipient = item.recipient as null | undefined

  // A malformed request is a validation error even when its carrier is also unknown: the caller
  // has to fix the fields first, and the carrier is judged on a well-formed request.
  if (details.length > 0) return { ok: false, error: 'validation_error', details, carrierCode, trackingNumber }
  const carrier = resolveCarrier(carrierCode, trackingNumber)
  if (!carrier.ok) {
    return {
      ok: false,
      error: carrier.error,
      details: [{ field: 'carrierCode', message: carrier.message }],
      carrierCode,
      trackingNumber,
      ...(carrier.candidates ? { candidates: carrier.candidates } : {}),
    }
  }
  return {
    ok: true,
    value: {
      carrierCode: carrier.carrierCode,
      trackingNumber,
      callbackUrl: item.callbackUrl as string,
      externalReferenceNo: (item.externalReferenceNo as string | null | undefined) ?? '',
      ...(recipient === undefined ? {} : { recipient }),
    },
  }
}
