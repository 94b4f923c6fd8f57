import type { SimulatedCarrier, SimulationContext, SimulatorAnswer, SimulatorRequest, ShipmentView } from '../../simulator/simulated-carrier'
import { parseJson, simulatedToken } from '../../simulator/simulator'
import { withOffset } from '../../simulator/times'
import { STORIES, type Place, type Stage, type StageKind } from '../../simulator/stories'

/**
 * FedEx's half of the simulator: OAuth and track, answered as the real API shapes them (see
 * test/fixtures/carriers/fedex).
 */

const FEDEX_MAX = 30
const TOKEN_LIFETIME_S = 3599

/** What FedEx says at each stage: [eventType, derivedStatusCode, derivedStatus, description, statusByLocale]. */
const STAGES: Record<StageKind, [string, string, string, string, string?]> = {
  label: ['OC', 'IN', 'Label created', 'Shipment information sent to FedEx'],
  picked_up: ['PU', 'PU', 'Picked up', 'Picked up'],
  in_transit: ['AR', 'IT', 'In transit', 'Arrived at FedEx hub'],
  out_for_delivery: ['OD', 'IT', 'In transit', 'On FedEx vehicle for delivery', 'On FedEx vehicle for delivery'],
  delivered: ['DL', 'DL', 'Delivered', 'Delivered'],
  exception: ['DE', 'DE', 'Delivery exception', 'Delivery exception'],
  failed_attempt: ['DE', 'DE', 'Delivery exception', 'Delivery exception'],
  out_again: ['OD', 'IT', 'In transit', 'On FedEx vehicle for delivery (second attempt)', 'On FedEx vehicle for delivery'],
  held_for_pickup: ['HL', 'HL', 'Ready for pickup', 'Held at FedEx location for pickup'],
  picked_up_by_recipient: ['DL', 'DL', 'Delivered', 'Picked up by the recipient at the FedEx location'],
  returned: ['RS', 'RS', 'Return to shipper', 'Returning package to shipper'],
  cancelled: ['CA', 'CA', 'Cancelled', 'Shipment cancelled by sender'],
}

function fedexStage(stage: Stage) {
  const [eventType, derivedStatusCode, derivedStatus, description, statusByLocale = derivedStatus] = STAGES[stage.kind]
  return { eventType, derivedStatusCode, derivedStatus, description, statusByLocale }
}

function address(place: Place) {
  // Real answers: streetLines is [""] when there is none, and most addresses hold no street.
  return {
    streetLines: [place.street],
    city: place.city,
    stateOrProvinceCode: place.state,
    postalCode: place.postalCode,
    countryCode: place.country,
    residential: false,
  }
}

function scan(stage: Stage, time: Date) {
  const fedex = fedexStage(stage)
  // Pickup scans carry a date without an offset, as some of FedEx's do (read as UTC).
  const date = fedex.eventType === 'PU' ? time.toISOString().slice(0, 19) : withOffset(time, stage.place.offsetMinutes)
  return {
    date,
    eventType: fedex.eventType,
    eventDescription: fedex.description,
    exceptionCode: stage.exception ? '08' : '',
    exceptionDescription: stage.exception,
    scanLocation: address(stage.place),
    locationType: 'FEDEX_FACILITY',
    derivedStatusCode: fedex.derivedStatusCode,
    derivedStatus: fedex.derivedStatus,
  }
}

function fedexTrackResult(trackingNumber: string, view: ShipmentView) {
  const latest = view.stages.at(-1)!
  const fedex = fedexStage(latest)
  const dateAndTimes: { type: string; dateTime: string }[] = [{ type: 'SHIP', dateTime: withOffset(view.times[0]!, -360) }]
  if (!view.final) dateAndTimes.push({ type: 'ESTIMATED_DELIVERY', dateTime: withOffset(view.estimatedDelivery, view.destination.offsetMinutes) })
  return {
    trackingNumberInfo: { trackingNumber, trackingNumberUniqueId: `12028~${trackingNumber}~FDEG`, carrierCode: 'FDXG' },
    shipperInformation: {
      contact: {},
      address: { city: view.origin.city, stateOrProvinceCode: view.origin.state, countryCode: view.origin.country, residential: false },
    },
    recipientInformation: {
      contact: {},
      address: { city: view.destination.city, stateOrProvinceCode: view.destination.state, countryCode: view.destination.country, residential: false },
    },
    latestStatusDetail: {
      code: fedex.eventType,
      derivedCode: fedex.derivedStatusCode,
      statusByLocale: fedex.statusByLocale,
      description: fedex.description,
      scanLocation: address(latest.place),
    },
    dateAndTimes,
    // A delivery's proof, as FedEx writes it once delivered.
    ...(latest.kind === 'delivered' || latest.kind === 'picked_up_by_recipient'
      ? {
          deliveryDetails: { receivedByName: 'J.TAN', locationDescription: 'Front Door', deliveryAttempts: '0' },
          availableImages: [{ type: 'SIGNATURE_PROOF_OF_DELIVERY' }],
        }
      : {}),
    estimatedDeliveryTimeWindow: { window: {} },
    standardTransitTimeWindow: { window: { ends: withOffset(view.estimatedDelivery, -360) } },
    // Newest first, as FedEx sends them.
    scanEvents: view.stages.map((s, i) => scan(s, view.times[i]!)).reverse(),
  }
}

function fedexNotFound(trackingNumber: string) {
  return {
    trackingNumberInfo: { trackingNumber, trackingNumberUniqueId: '', carrierCode: '' },
    error: { code: 'TRACKING.TRACKINGNUMBER.NOTFOUND', message: 'Tracking number cannot be found. Please correct the tracking number and try again.' },
  }
}

function fedexError(code: string, message: string) {
  return { transactionId: crypto.randomUUID(), errors: [{ code, message }] }
}

async function fedexTrack(request: SimulatorRequest, context: SimulationContext, tokens: Map<string, number>): Promise<SimulatorAnswer> {
  context.countTrack()
  const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1]
  const expiresAt = token ? tokens.get(token) : undefined
  if (!token || expiresAt === undefined || expiresAt <= context.now()) return expiredToken()
  const numbers = parseJson<{ trackingInfo?: { trackingNumberInfo?: { trackingNumber?: string } }[] }>(request.body)
    ?.trackingInfo?.map((t) => t.trackingNumberInfo?.trackingNumber)
    .filter((n): n is string => typeof n === 'string' && n.length > 0)
  if (!numbers || numbers.length === 0) return { status: 400, body: fedexError('TRACKING.TRACKINGNUMBER.EMPTY', 'Please provide tracking number.') }
  if (numbers.length > FEDEX_MAX)
    return { status: 400, body: fedexError('TRACKING.TRACKINGNUMBER.LIMIT', `At most ${FEDEX_MAX} tracking numbers per request.`) }
  const fault = await context.fault(numbers)
  if (fault === 'expired_token') {
    tokens.delete(token)
    return expiredToken()
  }
  if (fault) return fault
  const completeTrackResults = numbers.map((trackingNumber) => {
    const shipment = context.shipment(trackingNumber)
    if (!shipment.found) return { trackingNumber, trackResults: [fedexNotFound(trackingNumber)] }
    const { view } = shipment
    const live = fedexTrackResult(trackingNumber, view)
    if (!shipment.reused) return { trackingNumber, trackResults: [live] }
    // A reused number: an old, delivered shipment comes first; the newest scan decides.
    const yearsAgo = 2 * 365 * 24 * 3_600_000
    const old = fedexTrackResult(trackingNumber, {
      ...view,
      stages: STORIES.delivered,
      times: STORIES.delivered.map((_, i) => new Date(view.times[0]!.getTime() - yearsAgo + i * 3_600_000)),
      final: true,
    })
    return { trackingNumber, trackResults: [old, live] }
  })
  return {
    status: 200,
    body: { transactionId: crypto.randomUUID(), output: { completeTrackResults, alerts: context.now() % 2 ? 'TRACKING.DATA.PARTIAL - simulated alert' : [] } },
  }
}

function fedexToken(request: SimulatorRequest, context: SimulationContext, tokens: Map<string, number>): SimulatorAnswer {
  context.countToken()
  const form = new URLSearchParams(request.body)
  const expected = context.credentials
  const ok =
    form.get('grant_type') === 'client_credentials' &&
    (expected
      ? form.get('client_id') === expected.clientId && form.get('client_secret') === expected.clientSecret
      : Boolean(form.get('client_id') && form.get('client_secret')))
  if (!ok)
    return {
      status: 401,
      body: {
        transactionId: crypto.randomUUID(),
        errors: [{ code: 'NOT.AUTHORIZED.ERROR', message: 'The given client credentials were not valid. Please modify your request and try again.' }],
      },
    }
  const token = simulatedToken('fedex')
  tokens.set(token, context.now() + TOKEN_LIFETIME_S * 1000)
  return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: TOKEN_LIFETIME_S, scope: 'CXS' } }
}

function expiredToken(): SimulatorAnswer {
  return { status: 401, body: fedexError('NOT.AUTHORIZED.ERROR', 'Access token expired. Please modify your request and try again.') }
}

/** FedEx's simulator half; its tokens live as long as the simulator's process. */
export function fedexSimulator(): SimulatedCarrier {
  const tokens = new Map<string, number>()
  return {
    path: 'fedex',
    storyNumber: (prefix, serial) => `${prefix}${String(serial).padStart(10, '0')}`,
    emittedCodes: Object.fromEntries(Object.entries(STAGES).map(([kind, [eventType]]) => [kind, eventType])) as Record<StageKind, string>,
    errorBody: (status, message) => fedexError(status === 429 ? 'RATE.LIMIT.EXCEEDED' : status >= 500 ? 'INTERNAL.SERVER.ERROR' : 'BAD.REQUEST.ERROR', message),
    async handle(request, context) {
      if (request.method === 'POST' && request.path === '/oauth/token') return fedexToken(request, context, tokens)
      if (request.method === 'POST' && request.path === '/track/v1/trackingnumbers') return fedexTrack(request, context, tokens)
      return { status: 404, body: fedexError('NOT.FOUND.ERROR', 'The resource you requested is no longer available.') }
    },
  }
}
