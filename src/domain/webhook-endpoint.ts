import { normalizeCarrierCode } from './carriers'
import { MUST, type FieldError } from './errors'
import type { EventType } from './event-types'
import type { Milestone } from './milestones'
import { callbackUrlProblem } from './subscription-input'

/**
 * Account webhook endpoints (docs/webhooks.md, "Endpoints"): what a user may register and change.
 * The URL follows the callbackUrl's rules (and the same SSRF policy when sent to); the filters are
 * closed lists, each value once; an empty filter means every carrier or every milestone.
 */

/** At most this many endpoints a user. */
export const ENDPOINTS_PER_USER = 10
export const ENDPOINT_DESCRIPTION_MAX = 200
/** A rotated-out endpoint secret keeps signing for this long, beside the new one. */
export const ENDPOINT_SECRET_GRACE_SECONDS = 24 * 3600

export interface EndpointFields {
  url: string
  eventTypes: EventType[]
  description: string
  carrierCodes: string[]
  milestones: Milestone[]
  enabled: boolean
}

/** An endpoint as stored (its secret aside: only signing reads it). */
export interface EndpointRecord extends EndpointFields {
  endpointId: number
  createdAt: Date
  updatedAt: Date
}

/** A create's fields, or a patch's: the fields given, each judged as on create. */
export type EndpointPatch = Partial<EndpointFields>

/**
 * An endpoint's fields as its HTTP schema checked them: the ones given, each of its type, the
 * event types and milestones each one of their closed list, once, and the url and eventTypes
 * there on a create. What a schema cannot say is judged by `judgeEndpointFields`.
 */
export type EndpointInput = Partial<EndpointFields>

/**
 * What a schema cannot say of an endpoint's fields: the URL's rules (a callbackUrl's), carrier
 * codes upper-cased and each a carrier of the registry, once; a description without control
 * characters and well-formed.
 */
export function judgeEndpointFields(
  input: EndpointInput,
  carrierCodes: readonly string[],
): { ok: true; value: EndpointPatch } | { ok: false; details: FieldError[] } {
  const problems: FieldError[] = []
  const value: EndpointPatch = { ...input }
  if (input.url !== undefined) {
    const problem = callbackUrlProblem(input.url)
    if (problem) problems.push({ field: 'url', message: problem })
  }
  if (input.carrierCodes !== undefined) {
    // Each problem named at its item (`carrierCodes.1`), as the HTTP schema names the others.
    const codes: string[] = []
    for (const [index, code] of input.carrierCodes.map(normalizeCarrierCode).entries()) {
      if (!carrierCodes.includes(code)) {
        problems.push({ field: `carrierCodes.${index}`, message: MUST.oneOf(carrierCodes) })
        break
      }
      if (codes.includes(code)) {
        problems.push({ field: 'carrierCodes', message: MUST.distinct(codes.indexOf(code), index) })
        break
      }
      codes.push(code)
    }
    value.carrierCodes = codes
  }
  const d = input.description
  if (d !== undefined) {
    if (!d.isWellFormed()) problems.push({ field: 'description', message: MUST.wellFormed })
    // eslint-disable-next-line no-control-regex
    else if (/[\u0000-\u001f\u007f]/.test(d)) problems.push({ field: 'description', message: 'must not contain control characters' })
  }
  return problems.length > 0 ? { ok: false, details: problems } : { ok: true, value }
}

/** A create's fields with their defaults. */
export function withDefaults(patch: EndpointPatch): EndpointFields {
  return {
    url: patch.url!,
    eventTypes: patch.eventTypes!,
    description: patch.description ?? '',
    carrierCodes: patch.carrierCodes ?? [],
    milestones: patch.milestones ?? [],
    enabled: patch.enabled ?? true,
  }
}
