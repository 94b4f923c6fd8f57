import type { SimulatedCarrier, SimulationContext, SimulatorAnswer, SimulatorRequest, ShipmentView } from '../../simulator/simulated-carrier'
import type { Place, Stage, StageKind } from '../../simulator/stories'
import { withOffset } from '../../simulator/times'

/**
 * DHL's half of the simulator: GET /track/shipments?trackingNumber=… with the DHL-API-Key header,
 * answered as DHL Paket answers today (test/fixtures/carriers/dhl): events newest first, each with
 * the coarse statusCode, the two-letter status, the ICE statusDetailed and an English text; times
 * with their offset; a return ending in a delivered event with returnFlag; a reused number (RU…)
 * answering two shipments, the older under another id; not found as a 404 problem.
 */

/** What DHL says at each stage: [statusCode, status, statusDetailed, description]. */
const STAGES: Record<StageKind, [string, string, string, string]> = {
  label: ['pre-transit', 'VA', 'PARCV_NRQRD_VA', 'The instruction data for this shipment have been provided by the sender to DHL electronically'],
  picked_up: ['transit', 'AA', 'LDTMV_MVMTV_AA', 'The shipment has been processed in the parcel center of origin'],
  in_transit: [
    'transit',
    'EE',
    'ULFMV_UNLDD_EE',
    'The shipment arrived in the region of recipient and will be transported to the delivery base in the next step',
  ],
  out_for_delivery: ['transit', 'PO', 'SRTED_NRQRD_PO', 'The shipment has been loaded onto the delivery vehicle'],
  delivered: ['delivered', 'ZU', 'DLVRD_NGHBR_ZU', 'The shipment has been successfully delivered'],
  exception: ['failure', 'BV', 'DMGDS_DMGPC_BV', 'The shipment has been damaged in process'],
  failed_attempt: ['failure', 'ZN', 'NTDEL_NHOME_ZN', 'The recipient was not at home. The shipment could not be delivered'],
  out_again: ['transit', 'PO', 'LDTMV_MVMTV_PO', 'The shipment has been loaded onto the delivery vehicle'],
  held_for_pickup: ['transit', 'ZF', 'CNRFC_PCKST_ZF', 'The shipment is ready for pick-up at the Packstation'],
  picked_up_by_recipient: ['delivered', 'ZU', 'DLVRD_ACCPK_ZU', 'The shipment has been picked up from the Packstation'],
  // A return ends as DHL ends it: delivered (to the sender), told apart by returnFlag.
  returned: ['delivered', 'ZU', 'DLVRD_ACCPT_ZU', 'The shipment has been successfully delivered'],
  cancelled: ['failure', 'BV', 'CANCL_NRQRD_BV', 'The shipment order was canceled by the sender'],
}

function location(place: Place) {
  return { address: { countryCode: place.country, postalCode: place.postalCode, addressLocality: place.city } }
}

function event(stage: Stage, time: Date) {
  const [statusCode, status, statusDetailed, description] = STAGES[stage.kind]
  return {
    timestamp: withOffset(time, stage.place.offsetMinutes),
    location: location(stage.place),
    statusCode,
    status,
    statusDetailed,
    description,
    remark: description,
  }
}

function shipment(id: string, view: ShipmentView) {
  const events = view.stages.map((s, i) => event(s, view.times[i]!)).reverse()
  return {
    id,
    service: 'parcel-de',
    origin: location(view.origin),
    destination: location(view.destination),
    status: events[0],
    ...(view.final ? {} : { estimatedTimeOfDelivery: withOffset(view.estimatedDelivery, view.destination.offsetMinutes) }),
    returnFlag: view.stages.some((s) => s.kind === 'returned'),
    details: { product: { productName: 'DHL PAKET' }, totalNumberOfPieces: 1 },
    events,
  }
}

const problem = (status: number, title: string, detail: string): SimulatorAnswer => ({
  status,
  body: { title, status, detail },
  headers: { 'content-type': 'application/problem+json' },
})

async function track(request: SimulatorRequest, context: SimulationContext): Promise<SimulatorAnswer> {
  context.countTrack()
  const key = request.headers['dhl-api-key']
  const expected = context.credentials?.apiKey
  if (!key || (expected !== undefined && key !== expected) || request.headers.authorization) {
    return problem(401, 'Unauthorized', 'Unauthorized for given resource.')
  }
  const { query } = request
  const number = query.get('trackingNumber') ?? ''
  const fault = await context.fault([number])
  if (fault === 'expired_token') return problem(401, 'Unauthorized', 'Unauthorized for given resource.')
  if (fault) return fault
  const found = context.shipment(number)
  if (!found.found) return problem(404, 'No result found', 'No shipment with given tracking number found.')
  const shipments = [shipment(number, found.view)]
  // A reused number: DHL also answers the older shipment that carried it, under its own id.
  if (found.reused) shipments.push({ ...shipment(`${number}-2024`, found.view), status: undefined as never, events: [] })
  return { status: 200, body: { shipments } }
}

export function dhlSimulator(): SimulatedCarrier {
  return {
    path: 'dhl',
    storyNumber: (prefix, serial) => `${prefix}${String(serial).padStart(9, '0')}DE`,
    emittedCodes: Object.fromEntries(Object.entries(STAGES).map(([kind, [, status]]) => [kind, status])) as Record<StageKind, string>,
    errorBody: (status, message) => ({ title: status === 429 ? 'Too Many Requests' : 'Error', status, detail: message }),
    async handle(request, context) {
      if (request.method === 'GET' && request.path === '/track/shipments') return track(request, context)
      return problem(404, 'Not Found', 'Resource not found')
    },
  }
}
