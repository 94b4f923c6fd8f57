import type { SimulatedCarrier, SimulationContext, SimulatorAnswer, SimulatorRequest, ShipmentView } from '../../simulator/simulated-carrier'
import { basicHolds } from '../../simulator/basic-auth'
import { simulatedToken } from '../../simulator/simulator'
import type { StageKind } from '../../simulator/stories'
import { offsetText } from '../../simulator/times'
import { zoneOffsetMinutes } from '../time-zones'

/**
 * GLS's half of the simulator: the OAuth token (Basic, `expires_in` "14400") and
 * GET /track-and-trace-v1/tracking/simple/trackids/{A,B,…} with a Bearer token, answered as the
 * kit's bodies are (test/fixtures/carriers/gls): `{parcels: [...]}` matched by `requested`, events
 * newest first with PREFIX.SUFFIX codes, every time at Central European Time written without a
 * colon (+0100), empty strings for what it does not say, not found as an `E_404_01` element in a
 * 200, a 429 as Apigee's quota fault. GLS's kit knows no event for a damaged parcel (the exception
 * story is told as not delivered) and shows a return only in its text.
 */

const TOKEN_LIFETIME_S = 14_400

/** What GLS says at each stage: [event code, parcel status, English description]. */
const STAGES: Record<StageKind, [string, string, string]> = {
  label: ['INTIAL.PREADVICE', 'PREADVICE', 'The parcel data was entered into the GLS IT system; the parcel was not yet handed over to GLS.'],
  picked_up: ['INTIAL.NORMAL', 'INTRANSIT', 'The parcel was handed over to GLS.'],
  in_transit: ['INBOUD.NORMAL', 'INWAREHOUSE', 'The parcel has reached the parcel center.'],
  out_for_delivery: ['OUTDEL.NORMAL', 'INDELIVERY', 'The parcel is expected to be delivered during the day.'],
  delivered: ['DELIVD.NORMAL', 'DELIVERED', 'The parcel has been delivered.'],
  exception: ['NOTDEL.ABSENT', 'NOTDELIVERED', 'The parcel could not be delivered as the consignee was absent.'],
  failed_attempt: ['NOTDEL.ABSENT', 'NOTDELIVERED', 'The parcel could not be delivered as the consignee was absent.'],
  out_again: ['OUTDEL.NORMAL', 'INDELIVERY', 'The parcel is expected to be delivered during the day.'],
  held_for_pickup: ['DELIVD.PARCELSHOP', 'DELIVEREDPS', 'The parcel has been delivered at the ParcelShop (see ParcelShop information).'],
  picked_up_by_recipient: ['DELIVD.DEL_BY_PSAPP', 'DELIVERED', 'The parcel has been picked up by the consignee from the ParcelShop.'],
  returned: ['DELIVD.NORMAL', 'DELIVERED', 'The parcel has been returned to the shipper.'],
  cancelled: ['CANCEL.NORMAL', 'CANCELED', 'The parcel data have been deleted from the GLS IT system.'],
}

/** Central European Time as GLS writes it: 2024-10-07T10:46:14+0200. */
function cet(time: Date): string {
  const minutes = zoneOffsetMinutes('Europe/Berlin', time)
  return `${new Date(time.getTime() + minutes * 60_000).toISOString().slice(0, 19)}${offsetText(minutes).replace(':', '')}`
}

function parcel(requested: string, view: ShipmentView) {
  const latest = view.stages.at(-1)!
  return {
    requested,
    // A 12-digit parcel number comes back as its 11-digit unit number.
    unitno: /^[0-9]{12}$/.test(requested) ? requested.slice(0, 11) : requested,
    status: STAGES[latest.kind][1],
    statusDateTime: cet(view.times.at(-1)!),
    events: view.stages
      .map((s, i) => ({
        code: STAGES[s.kind][0],
        city: s.place.city,
        postalCode: '',
        country: s.place.country,
        description: STAGES[s.kind][2],
        eventDateTime: cet(view.times[i]!),
      }))
      .reverse(),
  }
}

const fault = (faultstring: string, errorcode: string) => ({ fault: { faultstring, detail: { errorcode } } })
const invalidToken: SimulatorAnswer = { status: 401, body: fault('Invalid access token', 'oauth.v2.InvalidAccessToken') }

function token(request: SimulatorRequest, context: SimulationContext, tokens: Map<string, number>): SimulatorAnswer {
  context.countToken()
  const expected = context.credentials
  const ok =
    new URLSearchParams(request.body).get('grant_type') === 'client_credentials' &&
    basicHolds(request.headers, expected && [expected.clientId, expected.clientSecret])
  if (!ok) return { status: 401, body: { errors: [{ type: '401', message: 'Invalid client identifier' }] } }
  const value = simulatedToken('gls')
  tokens.set(value, context.now() + TOKEN_LIFETIME_S * 1000)
  return { status: 200, body: { token_type: 'Bearer', access_token: value, expires_in: String(TOKEN_LIFETIME_S) } }
}

async function track(request: SimulatorRequest, context: SimulationContext, tokens: Map<string, number>, ids: string): Promise<SimulatorAnswer> {
  context.countTrack()
  const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1]
  const expiresAt = bearer ? tokens.get(bearer) : undefined
  if (!bearer || expiresAt === undefined || expiresAt <= context.now()) return invalidToken
  const numbers = decodeURIComponent(ids).split(',').filter(Boolean)
  if (numbers.length > 10) {
    return {
      status: 400,
      body: {
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: `Provided references of size '${numbers.length}' is more than allowed limit of 10`,
      },
    }
  }
  const served = await context.fault(numbers)
  if (served === 'expired_token') {
    tokens.delete(bearer)
    return { status: 401, body: fault('The Token has expired: policy(Verify-JWT)', 'steps.jwt.TokenExpired') }
  }
  if (served) return served
  const parcels = numbers.map((number) => {
    const found = context.shipment(number)
    return found.found ? parcel(number, found.view) : { requested: number, errorCode: 'E_404_01', errorMessage: 'Resource Not Found' }
  })
  return { status: 200, body: { parcels } }
}

export function glsSimulator(): SimulatedCarrier {
  const tokens = new Map<string, number>()
  return {
    path: 'gls',
    storyNumber: (prefix, serial) => `${prefix}${String(serial).padStart(10, '0')}`,
    emittedCodes: Object.fromEntries(Object.entries(STAGES).map(([kind, [code]]) => [kind, code])) as Record<StageKind, string>,
    errorBody: (status, message) =>
      status === 429
        ? fault('Rate limit quota violation. Quota limit  exceeded. Identifier : simulated', 'policies.ratelimit.QuotaViolation')
        : { type: 'about:blank', title: 'Error', status, detail: message },
    async handle(request, context) {
      if (request.method === 'POST' && request.path === '/oauth2/v2/token') return token(request, context, tokens)
      const match = /^\/track-and-trace-v1\/tracking\/simple\/trackids\/([^/]+)$/.exec(request.path)
      if (request.method === 'GET' && match) return track(request, context, tokens, match[1]!)
      return { status: 404, body: { type: 'about:blank', title: 'Not Found', status: 404, detail: 'No static resource', instance: request.path } }
    },
  }
}
