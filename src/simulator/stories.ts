/**
 * The carrier simulator's scripted stories, chosen by the tracking number's prefix (case
 * insensitive; a carrier may strip its own prefix first, as UPS does "1Z"), the same for every
 * carrier. A stage is carrier-neutral; each carrier's simulator says what it answers at each
 * stage. docs/simulator.md lists them.
 *
 *   EX…  exception      RS…  return to shipper    CA…  cancelled
 *   FA…  failed attempt, then delivered             HP…  held for pickup, then picked up
 *   NF…  not found      RU…  reused number (FedEx answers two shipments; the newer is live)
 *   ONLY<carrier>…  delivered at that carrier alone, not found at the others (knownOnlyTo)
 *   F429…     429 with Retry-After          F500…     HTTP 500
 *   FTIMEOUT… no answer before the timeout  FGARBAGE… malformed JSON
 *   FEXPIRED… the token is refused as expired once (the adapter must renew it)
 *   anything else: the delivered story
 *
 * A fault hits the whole request holding the number, for the number's first FAULT_REPEATS
 * requests; afterwards the number follows the delivered story, so recovery can be shown.
 */

export interface Place {
  city: string
  state: string
  country: string
  postalCode: string
  street: string
  /** The local time's offset from UTC, in minutes: the carriers write local times with it. */
  offsetMinutes: number
}

export const STAGE_KINDS = [
  'label',
  'picked_up',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'exception',
  'failed_attempt',
  'out_again',
  'held_for_pickup',
  'picked_up_by_recipient',
  'returned',
  'cancelled',
] as const
export type StageKind = (typeof STAGE_KINDS)[number]

export interface Stage {
  kind: StageKind
  place: Place
  /** The exception's reason, for the stages that have one. */
  exception: string
  /** From this stage on, the estimated delivery is a day later (a failed attempt moves it). */
  slipsEta?: boolean
}

export type StoryName = 'delivered' | 'exception' | 'failed_attempt' | 'held_for_pickup' | 'returned' | 'cancelled'
export type Fault = 'rate_limited' | 'server_error' | 'timeout' | 'garbage' | 'expired_token'

export type Script = { kind: 'story'; story: StoryName; reused: boolean } | { kind: 'not_found' } | { kind: 'fault'; fault: Fault }

export const FAULT_REPEATS = 2

export const ORIGIN: Place = { city: 'MEMPHIS', state: 'TN', country: 'US', postalCode: '38118', street: '3875 Airways Blvd', offsetMinutes: -300 }
export const DESTINATION: Place = { city: 'Singapore', state: '', country: 'SG', postalCode: '079903', street: '10 Anson Rd #12-01', offsetMinutes: 480 }
const HUB: Place = { city: 'INDIANAPOLIS', state: 'IN', country: 'US', postalCode: '46241', street: '', offsetMinutes: -300 }

export const stage = (kind: StageKind, place: Place, exception = ''): Stage => ({ kind, place, exception })

const LABEL = stage('label', ORIGIN)
const PICKED_UP = stage('picked_up', ORIGIN)
const IN_TRANSIT = stage('in_transit', HUB)
const OUT_FOR_DELIVERY = stage('out_for_delivery', DESTINATION)
const DELIVERED = stage('delivered', DESTINATION)
const EXCEPTION = stage('exception', DESTINATION, 'Package damaged; the shipper has been notified')
const FAILED_ATTEMPT = { ...stage('failed_attempt', DESTINATION, 'Customer not available or business closed'), slipsEta: true }
const OUT_AGAIN = stage('out_again', DESTINATION)
const HELD = stage('held_for_pickup', DESTINATION)
const PICKED_UP_BY_RECIPIENT = stage('picked_up_by_recipient', DESTINATION)
const RETURNED = stage('returned', ORIGIN)
const CANCELLED = stage('cancelled', ORIGIN)

export const STORIES: Record<StoryName, Stage[]> = {
  delivered: [LABEL, PICKED_UP, IN_TRANSIT, OUT_FOR_DELIVERY, DELIVERED],
  exception: [LABEL, PICKED_UP, IN_TRANSIT, OUT_FOR_DELIVERY, EXCEPTION],
  failed_attempt: [LABEL, PICKED_UP, IN_TRANSIT, OUT_FOR_DELIVERY, FAILED_ATTEMPT, OUT_AGAIN, DELIVERED],
  held_for_pickup: [LABEL, PICKED_UP, IN_TRANSIT, HELD, PICKED_UP_BY_RECIPIENT],
  returned: [LABEL, PICKED_UP, IN_TRANSIT, FAILED_ATTEMPT, RETURNED],
  cancelled: [LABEL, CANCELLED],
}

const PREFIXES: [string, Script][] = [
  ['FTIMEOUT', { kind: 'fault', fault: 'timeout' }],
  ['FGARBAGE', { kind: 'fault', fault: 'garbage' }],
  ['FEXPIRED', { kind: 'fault', fault: 'expired_token' }],
  ['F429', { kind: 'fault', fault: 'rate_limited' }],
  ['F500', { kind: 'fault', fault: 'server_error' }],
  ['EX', { kind: 'story', story: 'exception', reused: false }],
  ['FA', { kind: 'story', story: 'failed_attempt', reused: false }],
  ['HP', { kind: 'story', story: 'held_for_pickup', reused: false }],
  ['RS', { kind: 'story', story: 'returned', reused: false }],
  ['CA', { kind: 'story', story: 'cancelled', reused: false }],
  ['NF', { kind: 'not_found' }],
  ['RU', { kind: 'story', story: 'delivered', reused: true }],
]

/**
 * `ONLY<carrier>…` (the carrier's simulator path, `ONLYGLS…`): a number only that carrier knows,
 * following the delivered story; every other carrier answers not found. What a number subscribed
 * with the wrong carrier looks like (auto-correct).
 */
export function knownOnlyTo(trackingNumber: string, carrierPath: string): boolean {
  const upper = trackingNumber.toUpperCase()
  return !upper.startsWith(ONLY) || upper.startsWith(`${ONLY}${carrierPath.toUpperCase()}`)
}
const ONLY = 'ONLY'

export function scriptFor(trackingNumber: string): Script {
  const upper = trackingNumber.toUpperCase()
  for (const [prefix, script] of PREFIXES) if (upper.startsWith(prefix)) return script
  return { kind: 'story', story: 'delivered', reused: false }
}
