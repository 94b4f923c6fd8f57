import type { SimulatedCarrier, SimulationContext, SimulatorAnswer, SimulatorRequest, ShipmentView } from '../../simulator/simulated-carrier'
import { parseJson, simulatedToken } from '../../simulator/simulator'
import type { Place, StageKind } from '../../simulator/stories'
import { withOffset } from '../../simulator/times'
import { UPARCEL_MAX_BATCH } from './uparcel.format'

/** uParcel's half of the simulator, in the format of the project's carrier reference (times at +08:00). */

/** What uParcel says at each stage: [code, status, description]. uParcel has no pickup points: held parcels stay in transit. */
const STAGES: Record<StageKind, [string, string, string]> = {
  label: ['POSTED', 'Order Posted', 'Order posted by the merchant'],
  picked_up: ['PICKED_UP', 'Picked Up', 'Picked up by the driver'],
  in_transit: ['IN_TRANSIT', 'In Transit', 'At the uParcel hub'],
  out_for_delivery: ['OUT_FOR_DELIVERY', 'Out For Delivery', 'Out for delivery'],
  delivered: ['DELIVERED', 'Delivered', 'Delivered'],
  exception: ['ON_HOLD', 'On Hold', 'On hold'],
  failed_attempt: ['FAILED_DELIVERY', 'Delivery Failed', 'Delivery attempt failed'],
  out_again: ['OUT_FOR_DELIVERY', 'Out For Delivery', 'Out for delivery (second attempt)'],
  held_for_pickup: ['IN_TRANSIT', 'In Transit', 'At the uParcel hub'],
  picked_up_by_recipient: ['DELIVERED', 'Delivered', 'Collected by the recipient'],
  returned: ['RETURNED', 'Returned', 'Returned to the merchant'],
  cancelled: ['CANCELLED', 'Cancelled', 'Cancelled by the merchant'],
}

function location(place: Place) {
  return { address: place.street, pincode: place.postalCode, city: place.city, state: place.state, country: place.country }
}

function uparcelParcel(trackingNumber: string, view: ShipmentView) {
  const [latestCode, latestStatus] = STAGES[view.stages.at(-1)!.kind]
  const events = view.stages.map((s, i) => {
    const [code, status, description] = STAGES[s.kind]
    return { time: withOffset(view.times[i]!, 480), code, status, description, remark: s.exception, location: location(s.place) }
  })
  // "Events may come in any order": odd positions first.
  const shuffled = [...events.filter((_, i) => i % 2 === 1), ...events.filter((_, i) => i % 2 === 0)]
  return {
    tracking_number: trackingNumber,
    order_id: `SO-${trackingNumber.slice(-4)}`,
    status_code: latestCode,
    status: latestStatus,
    estimated_delivery: view.final ? null : withOffset(view.estimatedDelivery, 480),
    pickup: location(view.origin),
    delivery: location(view.destination),
    events: shuffled,
  }
}

function envelope(status: number, data: unknown, message: string, errors: string[] = []) {
  return { data, result: status === 200 ? 'SUCCESS' : 'FAILED', errors, status, message }
}

function auth(request: SimulatorRequest, context: SimulationContext, tokens: Set<string>): SimulatorAnswer {
  context.countToken()
  const json = parseJson<{ api_key?: string; secret_key?: string }>(request.body)
  const expected = context.credentials
  const ok = expected ? json?.api_key === expected.apiKey && json?.secret_key === expected.secretKey : Boolean(json?.api_key && json?.secret_key)
  if (!ok) return { status: 401, body: envelope(401, null, 'Unauthorized', ['Invalid api key or secret key']) }
  const token = simulatedToken('uparcel')
  tokens.add(token)
  return { status: 200, body: envelope(200, { access_token: token }, 'Access token successfully received.') }
}

async function track(request: SimulatorRequest, context: SimulationContext, tokens: Set<string>): Promise<SimulatorAnswer> {
  context.countTrack()
  const json = parseJson<{ tracking_number?: unknown; merchant_detail?: { access_token?: string } }>(request.body)
  const token = json?.merchant_detail?.access_token
  const expired: SimulatorAnswer = { status: 401, body: envelope(401, null, 'Unauthorized', ['Access token expired']) }
  if (!token || !tokens.has(token)) return expired
  const numbers = Array.isArray(json?.tracking_number) ? json.tracking_number.filter((n): n is string => typeof n === 'string' && n.length > 0) : []
  if (numbers.length === 0 || numbers.length > UPARCEL_MAX_BATCH)
    return { status: 400, body: envelope(400, null, 'Bad request', [`tracking_number must hold 1 to ${UPARCEL_MAX_BATCH} numbers`]) }
  const fault = await context.fault(numbers)
  if (fault === 'expired_token') {
    tokens.delete(token)
    return expired
  }
  if (fault) return fault
  const parcels = []
  const notFound = []
  for (const number of numbers) {
    const shipment = context.shipment(number)
    if (shipment.found) parcels.push(uparcelParcel(number, shipment.view))
    else notFound.push(number)
  }
  return { status: 200, body: envelope(200, { parcels, not_found: notFound }, 'Tracking status retrieved.') }
}

export function uparcelSimulator(): SimulatedCarrier {
  const tokens = new Set<string>()
  return {
    path: 'uparcel',
    storyNumber: (prefix, serial) => `${prefix}${String(serial).padStart(10, '0')}`,
    emittedCodes: Object.fromEntries(Object.entries(STAGES).map(([kind, [code]]) => [kind, code])) as Record<StageKind, string>,
    errorBody: (status, message) => envelope(status, null, status === 429 ? 'Too many requests' : status >= 500 ? 'Internal error' : message),
    async handle(request, context) {
      if (request.method === 'POST' && request.path === '/api/merchant/auth/') return auth(request, context, tokens)
      if (request.method === 'POST' && request.path === '/api/merchant/parcel-track-status/') return track(request, context, tokens)
      return { status: 404, body: envelope(404, null, 'Not found') }
    },
  }
}
