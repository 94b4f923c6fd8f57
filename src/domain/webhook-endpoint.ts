import { normalizeCarrierCode } from './carriers'
import { BODY_FIELD, MUST, type FieldError } from './errors'
import { EVENT_TYPES, type EventType } from './event-types'
import { MILESTONE_NAMES, type Milestone } from './milestones'
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

function list<T extends string>(
  field: string,
  value: unknown,
  allowed: readonly string[],
  problems: FieldError[],
  normalise = (v: string) => v,
  emptyOk = true,
): T[] | undefined {
  if (!Array.isArray(value)) {
    problems.push({ field, message: MUST.array })
    return undefined
  }
  // Each problem named at its item (`carrierCodes.1`), as the HTTP schema names the others.
  const values: T[] = []
  for (const [index, item] of value.entries()) {
    if (typeof item !== 'string') {
      problems.push({ field: `${field}.${index}`, message: MUST.string })
      return undefined
    }
    const v = normalise(item)
    if (!allowed.includes(v)) {
      problems.push({ field: `${field}.${index}`, message: MUST.oneOf(allowed) })
      return undefined
    }
    if (values.includes(v as T)) {
      problems.push({ field, message: MUST.distinct(values.indexOf(v as T), index) })
      return undefined
    }
    values.push(v as T)
  }
  if (!emptyOk && values.length === 0) problems.push({ field, message: MUST.notEmpty })
  return values
}

/**
 * Judges an endpoint's fields: all of them on create (url and eventTypes required), the ones given
 * on a patch. Unknown fields are the HTTP schema's to refuse.
 */
export function parseEndpointFields(
  input: Record<string, unknown>,
  mode: 'create' | 'patch',
  carrierCodes: readonly string[],
): { ok: true; value: EndpointPatch } | { ok: false; details: FieldError[] } {
  const problems: FieldError[] = []
  const value: EndpointPatch = {}
  const given = (field: string) => input[field] !== undefined
  if (mode === 'create' || given('url')) {
    const problem = callbackUrlProblem(input.url)
    if (problem) problems.push({ field: 'url', message: problem })
    else value.url = input.url as string
  }
  if (mode === 'create' || given('eventTypes')) {
    if (input.eventTypes === undefined) problems.push({ field: 'eventTypes', message: MUST.required })
    else value.eventTypes = list<EventType>('eventTypes', input.eventTypes, EVENT_TYPES, problems, (v) => v, false)
  }
  if (given('carrierCodes')) {
    value.carrierCodes = list<string>('carrierCodes', input.carrierCodes, carrierCodes, problems, normalizeCarrierCode)
  }
  if (given('milestones')) value.milestones = list<Milestone>('milestones', input.milestones, MILESTONE_NAMES, problems)
  if (given('description')) {
    const d = input.description
    if (typeof d !== 'string') problems.push({ field: 'description', message: MUST.string })
    else if (!d.isWellFormed()) problems.push({ field: 'description', message: MUST.wellFormed })
    else if ([...d].length > ENDPOINT_DESCRIPTION_MAX) problems.push({ field: 'description', message: MUST.atMost(ENDPOINT_DESCRIPTION_MAX) })
    // eslint-disable-next-line no-control-regex
    else if (/[\u0000-\u001f\u007f]/.test(d)) problems.push({ field: 'description', message: 'must not contain control characters' })
    else value.description = d
  }
  if (given('enabled')) {
    if (typeof input.enabled !== 'boolean') problems.push({ field: 'enabled', message: MUST.boolean })
    else value.enabled = input.enabled
  }
  if (mode === 'patch' && problems.length === 0 && Object.keys(value).length === 0)
    problems.push({ field: BODY_FIELD, message: 'must change at least one field' })
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
