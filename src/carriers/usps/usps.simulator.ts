import type { SimulatedCarrier, SimulationContext, SimulatorAnswer, SimulatorRequest, ShipmentView } from '../../simulator/simulated-carrier'
import { simulatedToken } from '../../simulator/simulator'
import type { Place, Stage, StageKind } from '../../simulator/stories'
import { offsetText } from '../../simulator/times'

/**
 * USPS's half of the simulator: the OAuth token (JSON body, `expires_in` 28799, the app's scopes)
 * and GET /tracking/v3/tracking/{number}, answered as real answers are shaped
 * (test/fixtures/carriers/usps): events newest first with a local `eventTimestamp` without offset,
 * `GMTOffset`, and a `GMTTimestamp` dated on the local day (a day off whenever UTC has crossed
 * midnight, as USPS's are); the label event without either; booleans as strings; HTML in texts;
 * the ETA a day at midnight; not found as HTTP 400 with subordinate code 150001. S10 numbers choose
 * their story by their service letters (FA…US is a failed attempt); IMpb numbers are delivered.
 */

const TOKEN_LIFETIME_S = 28_799
/** The scopes of an app granted the Tracking API; an app id starting "notrack" is not. */
const SCOPES = 'addresses international-prices subscriptions payments pickup tracking labels prices'

/** What USPS says at each stage: [eventCode, eventType, statusCategory]. */
const STAGES: Record<StageKind, [string, string, string]> = {
  label: ['GX', 'Shipping Label Created, USPS Awaiting Item', 'Pre-Shipment'],
  picked_up: ['03', 'USPS in possession of item', 'Accepted'],
  in_transit: ['10', 'Arrived at USPS Regional Facility', 'Moving Through Network'],
  out_for_delivery: ['OF', 'Out for Delivery', 'Out for Delivery'],
  delivered: ['01', 'Delivered, In/At Mailbox', 'Delivered'],
  exception: ['05', 'Undeliverable as Addressed', 'Alert'],
  failed_attempt: ['55', 'Notice Left (No Secure Location Available)', 'Delivery Attempt'],
  out_again: ['OF', 'Out for Delivery, Expected Delivery by 9:00pm', 'Out for Delivery'],
  held_for_pickup: ['16', 'Available for Pickup', 'Available for Pickup'],
  picked_up_by_recipient: ['43', 'Picked Up at Post Office', 'Delivered'],
  // USPS reports a return's arrival as a delivery; only the text tells it apart.
  returned: ['01', 'Delivered, To Original Sender', 'Delivered'],
  // USPS reports no voided label: the story stays at the label.
  cancelled: ['GX', 'Shipping Label Created, USPS Awaiting Item', 'Pre-Shipment'],
}

/** The local time USPS writes: no offset ("2024-11-22T13:58:00"). */
function local(time: Date, offsetMinutes: number): string {
  return new Date(time.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19)
}

const orNull = (text: string) => text || null

function trackingEvent(stage: Stage, time: Date) {
  const [eventCode, eventType] = STAGES[stage.kind]
  const { place } = stage
  const localTime = local(time, place.offsetMinutes)
  const clock = {
    eventTimestamp: `${localTime.slice(0, 17)}00`,
    // USPS's GMTTimestamp: the local date with the UTC time of day.
    GMTTimestamp: `${localTime.slice(0, 10)}T${time.toISOString().slice(11, 19)}Z`,
    GMTOffset: offsetText(place.offsetMinutes),
  }
  return {
    eventType,
    ...(stage.kind === 'label' ? { eventTimestamp: clock.eventTimestamp } : clock),
    eventCountry: place.country === 'US' ? null : place.country,
    eventCity: orNull(place.city.toUpperCase()),
    eventState: orNull(place.state),
    eventZIP: orNull(place.postalCode),
    firm: null,
    name: null,
    authorizedAgent: 'false',
    eventCode,
    additionalProp: null,
  }
}

function placeFields(prefix: 'origin' | 'destination', place: Place) {
  return { [`${prefix}City`]: place.city.toUpperCase(), [`${prefix}State`]: orNull(place.state), [`${prefix}ZIP`]: place.postalCode }
}

function trackAnswer(trackingNumber: string, view: ShipmentView) {
  const latest = view.stages.at(-1)!
  const [, status, statusCategory] = STAGES[latest.kind]
  const domestic = view.origin.country === 'US' && view.destination.country === 'US'
  return {
    ...placeFields('destination', view.destination),
    emailEnabled: 'true',
    ...(view.final ? {} : { expectedDeliveryTimeStamp: `${local(view.estimatedDelivery, view.destination.offsetMinutes).slice(0, 10)}T00:00:00` }),
    kahalaIndicator: 'false',
    mailClass: 'USPS Ground Advantage<SUP>&#153;</SUP>',
    mailType: domestic ? 'DM' : 'IM',
    ...placeFields('origin', view.origin),
    proofOfDeliveryEnabled: 'false',
    restoreEnabled: 'false',
    RRAMEnabled: 'false',
    RREEnabled: 'false',
    services: ['USPS Tracking<SUP>&#174;</SUP>', 'Up to $100 insurance included'],
    serviceTypeCode: '022',
    status,
    statusCategory,
    statusSummary: `Your item: ${status}.`,
    tableCode: 'T',
    uniqueMailPieceID: '164744476',
    mailPieceIntakeDate: '2024-11-23 06:20:13.000000',
    // Newest first, as USPS sends them.
    trackingEvents: view.stages.map((s, i) => trackingEvent(s, view.times[i]!)).reverse(),
    trackingNumber,
  }
}

export function uspsError(status: number, code: string, title: string) {
  return { apiVersion: '/tracking/v3', error: { code: String(status), message: title, errors: title ? [{ title, detail: '', code }] : [] } }
}

const NOT_YET =
  '12: A status update is not yet available on your package. It will be available when the shipper provides an update or the package is given to USPS. Check back soon. Sign up for Informed Delivery<SUP>reg;</SUP> to receive notifications for packages addressed to you. - '

function token(request: SimulatorRequest, context: SimulationContext, tokens: Map<string, number>): SimulatorAnswer {
  context.countToken()
  let body: Record<string, unknown> = {}
  try {
    body = JSON.parse(request.body) as Record<string, unknown>
  } catch {
    body = Object.fromEntries(new URLSearchParams(request.body))
  }
  const [id, secret] = [String(body.client_id ?? ''), String(body.client_secret ?? '')]
  const expected = context.credentials
  const ok = body.grant_type === 'client_credentials' && (expected ? id === expected.clientId && secret === expected.clientSecret : Boolean(id && secret))
  if (!ok) return { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed.' } }
  const value = simulatedToken('usps')
  const scope = id.startsWith('notrack') ? SCOPES.replace(' tracking', '') : SCOPES
  tokens.set(value, context.now() + TOKEN_LIFETIME_S * 1000)
  return {
    status: 200,
    body: {
      access_token: value,
      token_type: 'Bearer',
      issued_at: context.now(),
      expires_in: TOKEN_LIFETIME_S,
      status: 'approved',
      scope,
      issuer: 'api.usps.com',
      client_id: id,
    },
  }
}

async function track(request: SimulatorRequest, context: SimulationContext, tokens: Map<string, number>): Promise<SimulatorAnswer> {
  context.countTrack()
  const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1]
  const expiresAt = bearer ? tokens.get(bearer) : undefined
  const refused: SimulatorAnswer = { status: 401, body: uspsError(401, '', 'The client application identifier is invalid.') }
  if (!bearer || expiresAt === undefined || expiresAt <= context.now()) return refused
  const number = decodeURIComponent(request.path.slice('/tracking/v3/tracking/'.length))
  const fault = await context.fault([number])
  if (fault === 'expired_token') {
    tokens.delete(bearer)
    return refused
  }
  if (fault) return fault
  const shipment = context.shipment(number)
  if (!shipment.found) return { status: 400, body: uspsError(400, '150001', NOT_YET) }
  return { status: 200, body: trackAnswer(number, shipment.view) }
}

export function uspsSimulator(): SimulatedCarrier {
  const tokens = new Map<string, number>()
  return {
    path: 'usps',
    storyNumber: (prefix, serial) => `${prefix}${String(serial).padStart(9, '0')}US`,
    emittedCodes: Object.fromEntries(Object.entries(STAGES).map(([kind, [code]]) => [kind, code])) as Record<StageKind, string>,
    errorBody: (status, message) => uspsError(status, '', message),
    async handle(request, context) {
      if (request.method === 'POST' && request.path === '/oauth2/v3/token') return token(request, context, tokens)
      if (request.method === 'GET' && request.path.startsWith('/tracking/v3/tracking/')) return track(request, context, tokens)
      return { status: 404, body: uspsError(404, '', 'Resource not found') }
    },
  }
}
