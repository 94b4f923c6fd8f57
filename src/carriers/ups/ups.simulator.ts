import type { SimulatedCarrier, SimulationContext, SimulatorAnswer, SimulatorRequest, ShipmentView } from '../../simulator/simulated-carrier'
import { basicCredentials, basicHolds } from '../../simulator/basic-auth'
import { simulatedToken } from '../../simulator/simulator'
import type { Place, Stage, StageKind } from '../../simulator/stories'
import { compactLocal, offsetText } from '../../simulator/times'
import { upsAlertSimulator } from './track-alert/ups-alert.simulator'

/**
 * UPS's half of the simulator: the OAuth token (Basic auth, `expires_in` as a string) and
 * GET /api/track/v1/details/{number}, answered as real answers are shaped (test/fixtures/carriers/ups):
 * activities newest first with the three-digit statusCode, local date/time plus gmtDate/gmtTime,
 * texts with trailing spaces, not found as HTTP 200 with warning TW0001. A number's story is
 * chosen by what follows "1Z" (1ZFA… is a failed attempt).
 */

const TOKEN_LIFETIME_S = 14_399

/** What UPS says at each stage: [statusCode, type, two-letter code, description (with UPS's trailing space)]. */
const STAGES: Record<StageKind, [string, string, string, string]> = {
  label: ['003', 'M', 'MP', 'Shipper created a label, UPS has not received the package yet. '],
  picked_up: ['038', 'P', 'PU', 'Pickup Scan '],
  in_transit: ['005', 'I', 'AR', 'Arrived at Facility'],
  out_for_delivery: ['021', 'I', 'OT', 'Out For Delivery Today'],
  delivered: ['011', 'D', 'FS', 'DELIVERED '],
  exception: ['013', 'X', 'RZ', 'Damage reported. Shipper notified. '],
  failed_attempt: ['022', 'X', '48', "The receiver was not available for delivery. We'll make a second attempt the next business day. "],
  out_again: ['072', 'I', 'OF', 'Loaded on Delivery Vehicle '],
  held_for_pickup: ['161', 'X', 'ZP', 'Delivered to UPS Access Point(TM) and awaiting customer pickup. '],
  picked_up_by_recipient: ['011', 'D', 'KB', 'Delivered to UPS Access Point(TM) and picked up by customer '],
  returned: ['034', 'X', 'RS', 'Returned to sender '],
  cancelled: ['007', 'M', 'MV', 'Shipment Information Voided '],
}

function address(place: Place) {
  return { city: place.city, stateProvince: place.state, postalCode: place.postalCode, countryCode: place.country, country: place.country }
}

function activity(stage: Stage, time: Date) {
  const [statusCode, type, code, description] = STAGES[stage.kind]
  const offset = stage.place.offsetMinutes
  const utc = time.toISOString()
  return {
    location: { address: address(stage.place), slic: '9451' },
    status: { type, description, code, statusCode },
    ...compactLocal(time, offset),
    gmtDate: utc.slice(0, 10).replaceAll('-', ''),
    gmtOffset: offsetText(offset),
    gmtTime: utc.slice(11, 19),
  }
}

function trackAnswer(trackingNumber: string, view: ShipmentView) {
  const latest = view.stages.at(-1)!
  const [statusCode, , , description] = STAGES[latest.kind]
  const eta = compactLocal(view.estimatedDelivery, view.destination.offsetMinutes)
  return {
    trackResponse: {
      shipment: [
        {
          inquiryNumber: trackingNumber,
          package: [
            {
              trackingNumber,
              deliveryDate: view.final
                ? [{ type: 'DEL', date: compactLocal(view.times.at(-1)!, latest.place.offsetMinutes).date }]
                : [{ type: view.stages.some((s) => s.slipsEta) ? 'RDD' : 'SDD', date: eta.date }],
              deliveryTime: view.final
                ? { type: 'DEL', endTime: compactLocal(view.times.at(-1)!, latest.place.offsetMinutes).time }
                : { type: 'EOD', endTime: '200000' },
              currentStatus: { description: description.trim(), code: statusCode },
              packageAddress: [
                {
                  type: 'ORIGIN',
                  address: { city: view.origin.city, stateProvince: view.origin.state, countryCode: view.origin.country, country: view.origin.country },
                },
                {
                  type: 'DESTINATION',
                  address: {
                    city: view.destination.city,
                    stateProvince: view.destination.state,
                    countryCode: view.destination.country,
                    country: view.destination.country,
                  },
                },
              ],
              service: { code: '518', levelCode: '003', description: 'UPS Ground' },
              // A delivery's proof, as UPS writes it once delivered (no signature image: not asked for).
              ...(latest.kind === 'delivered' || latest.kind === 'picked_up_by_recipient'
                ? { deliveryInformation: { location: 'Front Door', receivedBy: 'TAN' } }
                : {}),
              // Newest first, as UPS sends them.
              activity: view.stages.map((s, i) => activity(s, view.times[i]!)).reverse(),
              packageCount: 1,
            },
          ],
        },
      ],
    },
  }
}

function upsError(code: string, message: string) {
  return { response: { errors: [{ code, message }] } }
}

function token(request: SimulatorRequest, context: SimulationContext, tokens: Map<string, number>): SimulatorAnswer {
  context.countToken()
  const { user } = basicCredentials(request.headers)
  const expected = context.credentials
  const ok =
    new URLSearchParams(request.body).get('grant_type') === 'client_credentials' &&
    basicHolds(request.headers, expected && [expected.clientId, expected.clientSecret])
  if (!ok) return { status: 401, body: upsError('10401', 'ClientId is Invalid') }
  const value = simulatedToken('ups')
  tokens.set(value, context.now() + TOKEN_LIFETIME_S * 1000)
  const issuedAt = String(context.now())
  return {
    status: 200,
    body: {
      token_type: 'Bearer',
      issued_at: issuedAt,
      client_id: user,
      access_token: value,
      scope: '',
      expires_in: String(TOKEN_LIFETIME_S),
      refresh_count: '0',
      status: 'approved',
    },
  }
}

/** The request's token when it is one the simulator gave and still live. */
function liveBearer(request: SimulatorRequest, context: SimulationContext, tokens: Map<string, number>): string | undefined {
  const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1]
  const expiresAt = bearer ? tokens.get(bearer) : undefined
  return bearer && expiresAt !== undefined && expiresAt > context.now() ? bearer : undefined
}

const INVALID_TOKEN: SimulatorAnswer = { status: 401, body: upsError('250002', 'Invalid Authentication Information.') }

async function track(request: SimulatorRequest, context: SimulationContext, tokens: Map<string, number>): Promise<SimulatorAnswer> {
  context.countTrack()
  const bearer = liveBearer(request, context, tokens)
  if (!bearer) return INVALID_TOKEN
  if (!request.headers.transid || !request.headers.transactionsrc) return { status: 400, body: upsError('TV1001', 'Missing transId or transactionSrc') }
  const number = decodeURIComponent(request.path.slice('/api/track/v1/details/'.length))
  if (number.length < 7 || number.length > 34) return { status: 400, body: upsError('TV1002', 'Invalid inquiry number') }
  const fault = await context.fault([number])
  if (fault === 'expired_token') {
    tokens.delete(bearer)
    return INVALID_TOKEN
  }
  if (fault) return fault
  const shipment = context.shipment(number)
  if (!shipment.found)
    return {
      status: 200,
      body: { trackResponse: { shipment: [{ inquiryNumber: number, warnings: [{ code: 'TW0001', message: 'Tracking Information Not Found' }] }] } },
    }
  return { status: 200, body: trackAnswer(number, shipment.view) }
}

/** A Track Alert subscription: the Track API's token, then UPS Track Alert's answer. */
function subscription(
  request: SimulatorRequest,
  context: SimulationContext,
  tokens: Map<string, number>,
  alerts: ReturnType<typeof upsAlertSimulator>,
): SimulatorAnswer {
  if (!liveBearer(request, context, tokens)) return INVALID_TOKEN
  if (!request.headers.transid) return { status: 400, body: upsError('VSS002', 'Missing transId') }
  if (!request.headers.transactionsrc) return { status: 400, body: upsError('VSS004', 'Missing transactionSrc') }
  return alerts.handle(request, context) ?? { status: 400, body: upsError('VSS930', 'Type is missing or invalid, The Subscription request has been rejected.') }
}

export function upsSimulator(): SimulatedCarrier & { alerts: ReturnType<typeof upsAlertSimulator> } {
  const tokens = new Map<string, number>()
  const alerts = upsAlertSimulator((stage) => STAGES[stage.kind])
  return {
    alerts,
    path: 'ups',
    storyNumber: (prefix, serial) => `1Z${prefix}${String(serial).padStart(12, '0')}`,
    emittedCodes: Object.fromEntries(Object.entries(STAGES).map(([kind, [statusCode]]) => [kind, statusCode])) as Record<StageKind, string>,
    storyKey: (number) => number.replace(/^1Z/i, ''),
    errorBody: (status, message) => upsError(status === 429 ? '10429' : status >= 500 ? '10004' : 'TV1002', message),
    pushes: (context) => alerts.pushes(context),
    async handle(request, context) {
      if (request.method === 'POST' && request.path === '/security/v1/oauth/token') return token(request, context, tokens)
      if (request.method === 'GET' && request.path.startsWith('/api/track/v1/details/')) return track(request, context, tokens)
      if (request.path.includes('/subscription/')) return subscription(request, context, tokens, alerts)
      return { status: 404, body: upsError('10404', 'Resource not found') }
    },
  }
}
