import type { SimulatedCarrier, SimulationContext, SimulatorAnswer, SimulatorRequest, ShipmentView } from '../../simulator/simulated-carrier'
import { basicHolds } from '../../simulator/basic-auth'
import type { StageKind } from '../../simulator/stories'
import { zoneOffsetMinutes } from '../time-zones'

/**
 * Canada Post's half of the simulator: GET /vis/track/pin/{pin}/detail with HTTP Basic, answered
 * in the kit's XML (test/fixtures/carriers/canadapost): `tracking-detail` in the track namespace,
 * occurrences newest first with a date, a time and Eastern time's name (EST or EDT) at Ottawa, a
 * signature event beside the delivery, empty elements for what it does not say, the expected
 * delivery as a day; not found as message 004, a refused key as E002. Canada Post's kit knows no
 * identifier for a return (the simulator tells one as a delivery whose text says "returned to
 * sender") nor for a cancelled label (it stays as the shipper's information).
 */

/** What Canada Post says at each stage: [event-identifier as bodies write it, English description]. */
const STAGES: Record<StageKind, [string, string]> = {
  label: ['3000', 'Electronic information submitted by shipper'],
  picked_up: ['2300', 'Item picked up by Canada Post'],
  in_transit: ['0100', 'Item processed at postal facility'],
  out_for_delivery: ['0174', 'Item out for delivery'],
  delivered: ['1496', 'Item successfully delivered'],
  exception: ['119', 'Item damaged; the sender has been notified'],
  failed_attempt: ['1479', 'Attempted delivery. Notice card left indicating where item can be picked up.'],
  out_again: ['0500', 'Out for delivery'],
  held_for_pickup: ['1701', 'Item available for pickup at Post Office'],
  picked_up_by_recipient: ['1498', 'Item successfully delivered'],
  returned: ['1496', 'Item returned to sender'],
  cancelled: ['3000', 'Electronic information submitted by shipper'],
}

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

/** Ottawa's wall clock and its zone's name, as Canada Post writes them. */
function eastern(time: Date): { date: string; time: string; zone: string } {
  const minutes = zoneOffsetMinutes('America/Toronto', time)
  const iso = new Date(time.getTime() + minutes * 60_000).toISOString()
  return { date: iso.slice(0, 10), time: iso.slice(11, 19), zone: minutes === -240 ? 'EDT' : 'EST' }
}

function occurrence(kind: StageKind, time: Date): string {
  const [identifier, description] = STAGES[kind]
  const at = eastern(time)
  const delivered = kind === 'delivered' || kind === 'picked_up_by_recipient'
  return `    <occurrence>
      <event-identifier>${identifier}</event-identifier>
      <event-date>${at.date}</event-date>
      <event-time>${at.time}</event-time>
      <event-time-zone>${at.zone}</event-time-zone>
      <event-description>${escape(description)}</event-description>
      <signatory-name>${delivered ? 'J. TREMBLAY' : ''}</signatory-name>
      <event-site>OTTAWA</event-site>
      <event-province>ON</event-province>
      <event-retail-location-id/>
      <event-retail-name/>
    </occurrence>`
}

function detail(pin: string, view: ShipmentView): string {
  const occurrences = view.stages.map((s, i) => occurrence(s.kind, view.times[i]!)).reverse()
  return `<?xml version="1.0" encoding="UTF-8"?>
<tracking-detail xmlns="http://www.canadapost.ca/ws/track-v2">
  <pin>${escape(pin)}</pin>
  <active-exists>1</active-exists>
  <archive-exists/>
  <changed-expected-date/>
  <destination-postal-id>K1A0B1</destination-postal-id>
  <expected-delivery-date>${view.final ? '' : eastern(view.estimatedDelivery).date}</expected-delivery-date>
  <changed-expected-delivery-reason/>
  <service-name>Expedited Parcels</service-name>
  <service-name-2>Colis accélérés</service-name-2>
  <customer-ref-1/>
  <customer-ref-2/>
  <return-pin/>
  <signature-image-exists>${view.stages.some((s) => s.kind === 'delivered' || s.kind === 'picked_up_by_recipient')}</signature-image-exists>
  <suppress-signature>false</suppress-signature>
  <significant-events>
${occurrences.join('\n')}
  </significant-events>
</tracking-detail>
`
}

const messages = (code: string, description: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<messages xmlns="http://www.canadapost.ca/ws/messages">\n  <message>\n    <code>${code}</code>\n    <description>${description}</description>\n  </message>\n</messages>\n`
const xml = (status: number, text: string): SimulatorAnswer => ({
  status,
  body: undefined,
  raw: text,
  headers: { 'content-type': 'application/vnd.cpc.track-v2+xml' },
})

async function track(request: SimulatorRequest, context: SimulationContext, pin: string): Promise<SimulatorAnswer> {
  context.countTrack()
  const expected = context.credentials
  const refused = xml(401, messages('E002', 'AAA Authentication Failure'))
  if (!basicHolds(request.headers, expected && [expected.username, expected.password])) return refused
  const fault = await context.fault([pin])
  if (fault === 'expired_token') return refused
  if (fault) return fault
  const found = context.shipment(pin)
  if (!found.found) return xml(404, messages('004', 'No Pin History'))
  return xml(200, detail(pin, found.view))
}

export function canadapostSimulator(): SimulatedCarrier {
  return {
    path: 'canadapost',
    storyNumber: (prefix, serial) => `${prefix}${String(serial).padStart(9, '0')}CA`,
    emittedCodes: Object.fromEntries(Object.entries(STAGES).map(([kind, [identifier]]) => [kind, String(Number(identifier))])) as Record<StageKind, string>,
    errorBody: (status, message) => messages(String(status), escape(message)),
    async handle(request, context) {
      const match = /^\/vis\/track\/pin\/([^/]+)\/detail$/.exec(request.path)
      if (request.method === 'GET' && match) return track(request, context, decodeURIComponent(match[1]!))
      return xml(404, messages('404', 'Not Found'))
    },
  }
}
