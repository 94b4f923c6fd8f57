import type { SimulatedPush, SimulationContext, SimulatorAnswer, SimulatorRequest, ShipmentView } from '../../../simulator/simulated-carrier'
import type { Stage } from '../../../simulator/stories'
import { compactLocal } from '../../../simulator/times'
import { credentialsBasic } from '../../oauth'
import { ALERT_LIFETIME_MS } from './ups-alert.client'

/** UPS's words for a stage: [statusCode, type, two-letter code, description]. */
export type StageWords = (stage: Stage) => readonly [string, string, string, string]

/** The OAuth client the simulated UPS presents to the service's token endpoint (v2), as configured without credentials. */
const SIMULATED_CLIENT = { clientId: 'simulator', secret: 'simulator' }

interface Subscription {
  version: 'v1' | 'v2'
  expiresAt: number
  /** v1: the secret to present, and the path of the URL to push to. */
  credential?: string
  path: string
  /** The stages already pushed (events before the subscription are never pushed: UPS keeps no history). */
  pushedStages: number
}

const upsError = (code: string, message: string) => ({ response: { errors: [{ code, message }] } })
const reject = (code: string, message: string): SimulatorAnswer => ({ status: 400, body: upsError(code, message) })

/**
 * UPS Track Alert's half of the UPS simulator: POST /api/track/{v1|v2}/subscription/{type}/package
 * (the Track API's token, up to 100 numbers, `locale` required, v1's `destination` required and
 * refused in v2, invalid numbers listed apart), and one push a new event of a subscribed number
 * for 14 days, shaped as UPS's examples (v1: "" for the unknown; v2: omitted), authenticated as
 * UPS does (v1: the `credential` header; v2: a token fetched from the service's token endpoint
 * and `x-api-key`).
 */
export function upsAlertSimulator(words: StageWords) {
  const subscriptions = new Map<string, Subscription>()

  function subscribe(request: SimulatorRequest, context: SimulationContext, version: 'v1' | 'v2'): SimulatorAnswer {
    context.countSubscription()
    let body: Record<string, unknown>
    try {
      body = JSON.parse(request.body) as Record<string, unknown>
    } catch {
      return reject('VSS110', 'Subscription request is empty or not present. The Subscription request has been rejected.')
    }
    if (body.locale !== 'en_US') return reject('VSS300', 'Locale is required. The Subscription request has been rejected.')
    const list = Array.isArray(body.trackingNumberList) ? body.trackingNumberList.map((n) => String(n)) : []
    if (list.length === 0) return reject('VSS200', 'Tracking Number List is required. The Subscription request has been rejected.')
    if (list.length > 100)
      return reject('VSS220', 'You have submitted over 100 tracking numbers which is not allowed. The entire submission has been rejected.')
    const destination = body.destination as { url?: unknown; credential?: unknown } | undefined
    if (version === 'v1' && !destination) return reject('VSS500', 'Destination is required. The Subscription request has been rejected')
    if (version === 'v2' && destination) return reject('VSS000', 'Invalid request and The Subscription request has been rejected.')
    if (version === 'v1' && (typeof destination!.url !== 'string' || !destination!.url))
      return reject('VSS600', 'URL is empty or not present. The Subscription request has been rejected.')
    if (version === 'v1' && (typeof destination!.credential !== 'string' || !destination!.credential))
      return reject('VSS700', 'Credential is empty or not present. The Subscription request has been rejected.')
    const valid = list.filter((n) => /^(1Z[0-9A-Z]{16}|1R[0-9A-Z]{14}|1R[0-9A-Z]{26})$/.test(n))
    const invalid = list.filter((n) => !valid.includes(n))
    if (valid.length === 0)
      return {
        status: 400,
        body: {
          invalidTrackingNumbers: invalid,
          ...upsError('VSS210', 'The Subscription request should have at least one valid tracking number. The Subscription request has been rejected.'),
        },
      }
    for (const number of valid) {
      const shipment = context.shipment(number)
      const pushedStages = shipment.found ? shipment.view.stages.length : 0
      subscriptions.set(number, {
        version,
        expiresAt: context.now() + ALERT_LIFETIME_MS,
        ...(version === 'v1' ? { credential: String(destination!.credential) } : {}),
        path: version === 'v1' ? new URL(String(destination!.url)).pathname : '/inbound/ups',
        pushedStages: Math.max(pushedStages, subscriptions.get(number)?.pushedStages ?? 0),
      })
    }
    return { status: 200, body: { validTrackingNumbers: valid, ...(invalid.length > 0 ? { invalidTrackingNumbers: invalid } : {}) } }
  }

  function eventBody(number: string, view: ShipmentView, index: number, version: 'v1' | 'v2'): Record<string, unknown> {
    const stage = view.stages[index]!
    const time = view.times[index]!
    const [statusCode, type, code, description] = words(stage)
    const local = compactLocal(time, stage.place.offsetMinutes)
    const gmt = compactLocal(time, 0)
    const delivered = type === 'D' && index === view.stages.length - 1 && view.final
    const scheduled = delivered ? '' : compactLocal(view.estimatedDelivery, view.destination.offsetMinutes).date
    const v1 = version === 'v1'
    const optional = (value: string) => (value || v1 ? value : undefined)
    return {
      trackingNumber: number,
      localActivityDate: local.date,
      localActivityTime: local.time,
      activityLocation: {
        city: stage.place.city,
        stateProvince: stage.place.state,
        postalCode: optional(delivered ? stage.place.postalCode : ''),
        country: stage.place.country,
      },
      activityStatus: { type, code, description: description.trim(), descriptionCode: statusCode },
      scheduledDeliveryDate: optional(scheduled),
      gmtActivityDate: gmt.date,
      gmtActivityTime: gmt.time,
      actualDeliveryDate: optional(delivered ? local.date : ''),
      actualDeliveryTime: optional(delivered ? local.time : ''),
    }
  }

  return {
    subscriptions: () => subscriptions,
    /** Answers a subscription request; undefined for a path that is not one. */
    handle(request: SimulatorRequest, context: SimulationContext): SimulatorAnswer | undefined {
      const match = /^\/api\/track\/(v1|v2)\/subscription\/(standard|enhanced)\/package$/.exec(request.path)
      if (request.method !== 'POST' || !match) return undefined
      return subscribe(request, context, match[1] as 'v1' | 'v2')
    },
    /** One push for each new event of each live subscription, oldest first (what UPS could not deliver is lost, as at UPS). */
    pushes(context: SimulationContext): SimulatedPush[] {
      const due: SimulatedPush[] = []
      for (const [number, subscription] of subscriptions) {
        if (subscription.expiresAt <= context.now()) continue
        const shipment = context.shipment(number)
        if (!shipment.found) continue
        for (let index = subscription.pushedStages; index < shipment.view.stages.length; index++) {
          const body = JSON.stringify(eventBody(number, shipment.view, index, subscription.version))
          const headers = { 'content-type': 'application/json', 'user-agent': 'UPSPubSubTrackingService' }
          const taken = () => (subscription.pushedStages = Math.max(subscription.pushedStages, index + 1))
          if (subscription.version === 'v1') due.push({ path: subscription.path, body, headers: { ...headers, credential: subscription.credential! }, taken })
          else due.push({ path: subscription.path, body, headers, authorize: (origin) => fetchToken(origin), taken })
        }
      }
      return due
    },
  }
}

/** v2: UPS fetches a token from the service's endpoint (client_secret_basic) and pushes with it and x-api-key. */
async function fetchToken(origin: string): Promise<Record<string, string>> {
  const answer = await fetch(`${origin}/inbound/ups/token`, {
    method: 'POST',
    ...credentialsBasic(SIMULATED_CLIENT.clientId, SIMULATED_CLIENT.secret),
    signal: AbortSignal.timeout(5000),
  })
  const body = (await answer.json()) as { access_token?: string }
  const token = body.access_token
  if (!answer.ok || !token) throw new Error(`the service refused the token request (HTTP ${answer.status})`)
  return { authorization: `Bearer ${token}`, 'x-api-key': SIMULATED_CLIENT.clientId }
}
