import { parseJson } from '../../simulator/simulator'
import type { Place, StageKind } from '../../simulator/stories'
import type { SimulatedCarrier, SimulatedPush, SimulationContext, SimulatorAnswer, ShipmentView } from '../../simulator/simulated-carrier'
import { withOffset } from '../../simulator/times'
import { obj, str } from '../json'
import { parseRecordKey, recordKey } from './seventeentrack.mapper'
import { pushSignature } from './seventeentrack.signature'

/**
 * 17TRACK's half of the simulator: POST /track/v2.2/{register,gettrackinfo,retrack,changecarrier,stoptrack} with the key
 * in `17token`, a JSON array of at most 40 numbers, answered in the envelope
 * `{code, data: {accepted, rejected}}` of test/fixtures/carriers/17track. It keeps its own
 * registrations, as 17TRACK does: reading an unregistered number is rejected (-18019902), a number
 * registered again is "already registered" (-18019901, no quota), each registration counts against
 * the quota given (-18019908 past it). `track_info` is shaped like the official push example.
 */

/** What 17TRACK says at each stage: [sub_status, event stage, description]. */
const STAGES: Record<StageKind, [string, string | null, string]> = {
  label: ['InfoReceived', 'InfoReceived', 'Shipment information received'],
  picked_up: ['InTransit_PickedUp', 'PickedUp', 'Item collected from the sender'],
  in_transit: ['InTransit_Other', null, 'Item arrived at the sorting centre'],
  out_for_delivery: ['OutForDelivery_Other', 'OutForDelivery', 'Out for delivery'],
  delivered: ['Delivered_Other', 'Delivered', 'Delivered'],
  exception: ['Exception_Damage', null, 'Item damaged in transit'],
  failed_attempt: ['DeliveryFailure_NoBody', null, 'We tried to deliver your item but nobody was in'],
  out_again: ['OutForDelivery_Other', 'OutForDelivery', 'Out for delivery again'],
  held_for_pickup: ['AvailableForPickup_Other', 'AvailableForPickup', 'Item ready for collection at the pick-up point'],
  picked_up_by_recipient: ['Delivered_Other', 'Delivered', 'Item collected by the recipient'],
  returned: ['Exception_Returned', 'Returned', 'Item returned to the sender'],
  cancelled: ['Exception_Cancel', null, 'Shipment cancelled by the sender'],
}

const MAIN = (subStatus: string) => subStatus.split('_')[0]!

const address = (place: Place) => ({
  country: place.country,
  state: place.state || null,
  city: place.city,
  street: null,
  postal_code: place.postalCode || null,
  coordinates: { longitude: null, latitude: null },
})

/** A record's `track_info` as the story shows it now. */
export function trackInfoOf(view: ShipmentView, providerKey: number) {
  const events = view.stages
    .map((stage, i) => {
      const time = view.times[i]!
      const [subStatus, eventStage, description] = STAGES[stage.kind]
      return {
        time_iso: withOffset(time, stage.place.offsetMinutes),
        time_utc: `${time.toISOString().slice(0, 19)}Z`,
        time_raw: { date: null, time: null, timezone: null },
        description: stage.exception || description,
        location: [stage.place.city, stage.place.state, stage.place.country].filter(Boolean).join(', '),
        stage: eventStage,
        sub_status: subStatus,
        address: address(stage.place),
      }
    })
    .reverse()
  const [subStatus] = STAGES[view.stages.at(-1)!.kind]
  const ended = view.final
  return {
    shipping_info: { shipper_address: address(view.origin), recipient_address: address(view.destination) },
    latest_status: { status: MAIN(subStatus), sub_status: subStatus, sub_status_descr: null },
    latest_event: events[0] ?? null,
    time_metrics: {
      estimated_delivery_date: ended
        ? { source: null, from: null, to: null }
        : { source: 'Official', from: null, to: withOffset(view.estimatedDelivery, view.destination.offsetMinutes) },
    },
    tracking: {
      providers_hash: 0,
      providers: [{ provider: { key: providerKey, name: 'Simulated carrier', alias: 'Simulated', homepage: '', country: '' }, events_hash: 0, events }],
    },
  }
}

export interface SeventeenTrackSimulatorOptions {
  /** Registrations the key may make (17TRACK's quota); unlimited when absent. */
  quota?: number
}

type Item = { number: string; carrier: number }
type Rejection = { number: string; error: { code: number; message: string } }
const rejection = (number: string, code: number, message: string): Rejection => ({ number, error: { code, message } })
const notRegistered = (number: string) => rejection(number, -18019902, `Tracking number ${number} is not registered yet. Please register first.`)

/** 17TRACK's envelope for a call whose items `judge` accepts (an element) or rejects (a rejection) one by one. */
function answerEach<I>(items: I[], judge: (item: I) => { accepted: unknown } | { rejected: Rejection }): SimulatorAnswer {
  const accepted: unknown[] = []
  const rejected: Rejection[] = []
  for (const item of items) {
    const answer = judge(item)
    if ('accepted' in answer) accepted.push(answer.accepted)
    else rejected.push(answer.rejected)
  }
  return { status: 200, body: { code: 0, data: { accepted, rejected } } }
}

/**
 * The simulator's detection, by shape: a UPU number of Great Britain is Royal Mail's, PostNL's 3S…
 * is PostNL's, a UPS InfoNotice number (J and ten digits, which our UPS formats do not know) UPS's.
 */
function detectedKey(number: string): number | undefined {
  if (/^[A-Z]{2}\d{9}GB$/.test(number)) return 11031
  if (/^3S[A-Z0-9]{8,}$/.test(number)) return 14041
  if (/^J\d{10}$/.test(number)) return 100002
  return undefined
}

export function seventeenTrackSimulator(
  options: SeventeenTrackSimulatorOptions = {},
): SimulatedCarrier & { registrations(): Map<string, 'tracking' | 'stopped'> } {
  const registered = new Map<string, 'tracking' | 'stopped'>()
  /** Each record's stages as last pushed. */
  const pushed = new Map<string, number>()
  let quotaUsed = 0

  const register = (items: Item[]) =>
    answerEach(items, ({ number, carrier: asked }) => {
      // Without a carrier, 17TRACK detects one (origin 1), or cannot (-18019903, no quota spent).
      const carrier = Number.isInteger(asked) && asked > 0 ? asked : detectedKey(number)
      if (carrier === undefined) return { rejected: rejection(number, -18019903, `Unable to identify the carrier of '${number}', please specify the carrier.`) }
      const record = recordKey(carrier, number)
      if (number.length < 5 || number.length > 50) return { rejected: rejection(number, -18010012, `The format of '${number}' is invalid.`) }
      if (registered.has(record))
        return { rejected: rejection(number, -18019901, `The tracking number '${number}' has been registered, don't need to repeat registration.`) }
      if (options.quota !== undefined && quotaUsed >= options.quota) return { rejected: rejection(number, -18019908, 'Your quotas have run out.') }
      quotaUsed++
      registered.set(record, 'tracking')
      return { accepted: { origin: carrier === asked ? 2 : 1, number, carrier } }
    })

  const read = (items: Item[], context: SimulationContext) =>
    answerEach(items, ({ number, carrier }) => {
      if (!registered.has(recordKey(carrier, number))) return { rejected: notRegistered(number) }
      const shipment = context.shipment(number)
      if (!shipment.found) return { rejected: rejection(number, -18019909, 'No tracking info at the moment.') }
      return { accepted: { number, carrier, param: null, tag: '', track_info: trackInfoOf(shipment.view, carrier) } }
    })

  const restarted = new Set<string>()
  const retrack = (items: Item[]) =>
    answerEach(items, ({ number, carrier }) => {
      const record = recordKey(carrier, number)
      const state = registered.get(record)
      if (state === undefined) return { rejected: notRegistered(number) }
      if (state === 'tracking') return { rejected: rejection(number, -18019904, 'Only stopped numbers can be re-tracked.') }
      if (restarted.has(record)) return { rejected: rejection(number, -18019905, 'Each tracking number can only be re-tracked once.') }
      restarted.add(record)
      registered.set(record, 'tracking')
      return { accepted: { number, carrier } }
    })

  const changes = new Map<string, number>()
  const changeCarrier = (items: { number: string; carrierOld: number; carrierNew: number }[]) =>
    answerEach(items, ({ number, carrierOld, carrierNew }) => {
      const from = recordKey(carrierOld, number)
      const to = recordKey(carrierNew, number)
      const state = registered.get(from)
      const changed = changes.get(number) ?? 0
      if (state === undefined)
        return { rejected: rejection(number, -18019805, `The tracking number ${number} for the specified carrier ${carrierOld} is not registered.`) }
      if (state === 'stopped') return { rejected: rejection(number, -18019806, 'Carrier cannot be changed for stopped numbers.') }
      if (registered.has(to)) return { rejected: rejection(number, -18019809, 'The registration information of the carrier already exists.') }
      if (changed >= 5) return { rejected: rejection(number, -18019807, 'The times for changing carrier exceed limit.') }
      changes.set(number, changed + 1)
      registered.delete(from)
      registered.set(to, 'tracking')
      return { accepted: { number, carrier: carrierNew } }
    })

  const stop = (items: Item[]) =>
    answerEach(items, ({ number, carrier }) => {
      const record = recordKey(carrier, number)
      const state = registered.get(record)
      if (state === undefined) return { rejected: notRegistered(number) }
      if (state === 'stopped') return { rejected: rejection(number, -18019906, 'Only numbers being tracked can be stopped.') }
      registered.set(record, 'stopped')
      return { accepted: { number, carrier } }
    })

  return {
    path: '17track',
    // Numbers of any shape: the routed carriers' own (Royal Mail's AB123456789GB).
    storyNumber: (prefix, serial) => `${prefix}${String(serial).padStart(9, '0')}GB`,
    emittedCodes: Object.fromEntries(Object.entries(STAGES).map(([kind, [code]]) => [kind, code])) as Record<StageKind, string>,
    errorBody: (status, message) => ({ code: status, data: { errors: [{ code: status, message }] } }),
    registrations: () => registered,
    // 17TRACK pushes a registered number's track_info whenever its story moved, signed with the key.
    pushes(context) {
      const due: SimulatedPush[] = []
      for (const [record, state] of registered) {
        if (state !== 'tracking') continue
        const { carrierKey, trackingNumber } = parseRecordKey(record)
        const shipment = context.shipment(trackingNumber)
        if (!shipment.found || pushed.get(record) === shipment.view.stages.length) continue
        const stages = shipment.view.stages.length
        const body = JSON.stringify({
          event: 'TRACKING_UPDATED',
          data: { number: trackingNumber, carrier: carrierKey, param: null, tag: '', track_info: trackInfoOf(shipment.view, carrierKey) },
        })
        const sign = pushSignature(Buffer.from(body, 'utf8'), context.credentials?.apiKey ?? 'simulator')
        due.push({ path: '/inbound/17track', body, headers: { 'content-type': 'application/json', sign }, taken: () => pushed.set(record, stages) })
      }
      return due
    },
    async handle(request, context) {
      const match = /^\/track\/v2\.[24]\/(register|gettrackinfo|retrack|changecarrier|stoptrack)$/.exec(request.path)
      if (request.method !== 'POST' || !match) return { status: 404, body: { code: 404, data: { errors: [{ code: 404, message: 'Not Found' }] } } }
      const key = request.headers['17token']
      const expected = context.credentials?.apiKey
      if (!key || (expected !== undefined && key !== expected))
        return { status: 401, body: { code: -18010002, data: { errors: [{ code: -18010002, message: 'Invalid security key.' }] } } }
      const body = parseJson<unknown>(request.body)
      if (!Array.isArray(body)) return { status: 200, body: { code: -18010013, data: { errors: [{ code: -18010013, message: 'Invalid submitted data.' }] } } }
      if (body.length > 40)
        return { status: 200, body: { code: -18010014, data: { errors: [{ code: -18010014, message: 'Tracking numbers exceed 40 limit.' }] } } }
      if (match[1] === 'changecarrier') {
        context.countToken()
        return changeCarrier(
          body.map(obj).map((item) => ({ number: str(item.number).toUpperCase(), carrierOld: Number(item.carrier_old), carrierNew: Number(item.carrier_new) })),
        )
      }
      const items = body.map(obj).map((item) => ({ number: str(item.number).toUpperCase(), carrier: Number(item.carrier) }))
      if (match[1] === 'gettrackinfo') {
        context.countTrack()
        const fault = await context.fault(items.map((i) => i.number))
        if (fault && fault !== 'expired_token') return fault
        return read(items, context)
      }
      context.countToken()
      return match[1] === 'register' ? register(items) : match[1] === 'retrack' ? retrack(items) : stop(items)
    },
  }
}
