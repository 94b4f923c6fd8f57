import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CarrierError, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { createCarrierSimulator } from '../registry'
import { USPS_NO_TRACKING_SCOPE } from './usps.client'
import { USPS } from './usps.plugin'

// The USPS story set through the real adapter and the simulator speaking USPS, one stage at a time
// (the simulator's clock moves a step between fetches). S10 numbers choose their story by their
// service letters (FA…US is a failed attempt); IMpb numbers are delivered.
const STEP = 60_000
let clock = Date.parse('2026-03-02T08:00:00Z')
const sim = createCarrierSimulator({ stepMs: STEP, now: () => clock })
const adapter = (clientId = 'id') =>
  USPS.createAdapter({ baseUrl: sim.urlOf(USPS.simulator), credentials: { clientId, clientSecret: 'secret' }, timeoutMs: 2000 })
let usps: CarrierAdapter

beforeAll(async () => {
  await sim.start()
  usps = adapter()
})
afterAll(async () => {
  await usps.close()
  await sim.stop()
})

async function walk(number: string, stages: number): Promise<CarrierLookup[]> {
  const seen: CarrierLookup[] = []
  for (let i = 0; i < stages; i++) {
    seen.push((await usps.fetch([number])).get(number)!)
    clock += STEP
  }
  return seen
}

const milestones = (lookups: CarrierLookup[]) => lookups.map((l) => (l.found ? l.snapshot.milestone : 'not_found'))

describe('USPS stories through the simulator', () => {
  it('delivered: label, accepted, transit, out for delivery, delivered (an IMpb number)', async () => {
    const seen = await walk('9400109104250532908587', 5)
    expect(milestones(seen)).toEqual(['info_received', 'in_transit', 'in_transit', 'out_for_delivery', 'delivered'])
    const last = seen.at(-1)!
    if (!last.found) throw new Error('expected found')
    expect(last.snapshot.events.map((e) => e.eventCode)).toEqual(['GX', '03', '10', 'OF', '01'])
    expect(last.snapshot.carrierStatus).toBe('Delivered, In/At Mailbox')
    // Each time is the story's, whatever the simulator wrote into GMTTimestamp's date.
    const times = last.snapshot.events.map((e) => e.eventTime.getTime())
    expect(times.slice(1).every((t, i) => t - times[i]! === STEP)).toBe(true)
  })

  it('failed attempt (55), out again, delivered', async () => {
    expect(milestones(await walk('FA123456785US', 7))).toEqual([
      'info_received',
      'in_transit',
      'in_transit',
      'out_for_delivery',
      'failed_attempt',
      'out_for_delivery',
      'delivered',
    ])
  })

  it('held at a Post Office (16), then picked up (43)', async () => {
    expect(milestones(await walk('HP123456785US', 5))).toEqual(['info_received', 'in_transit', 'in_transit', 'available_for_pickup', 'delivered'])
  })

  it('returned: a code-01 "Delivered, To Original Sender" is a return', async () => {
    const seen = await walk('RS123456785US', 5)
    expect(milestones(seen).slice(-2)).toEqual(['failed_attempt', 'returned'])
    const last = seen.at(-1)!
    expect(last.found && last.snapshot.standardStatus).toBe('returned')
  })

  it('not found: HTTP 400 with 150001, a pending answer rather than a failure', async () => {
    expect(await walk('NF123456785US', 1)).toEqual([{ found: false, reason: 'HTTP 400 150001' }])
  })

  it('shares one token across requests, and renews a refused one once', async () => {
    const before = sim.stats().carriers.usps!.tokenRequests
    await walk('9400109104250532908587', 3)
    expect(sim.stats().carriers.usps!.tokenRequests).toBe(before)
    expect(milestones(await walk('FEXPIRED123456785US', 1))).not.toEqual(['not_found'])
    expect(sim.stats().carriers.usps!.tokenRequests).toBe(before + 1)
  })

  it('honours Retry-After on a 429', async () => {
    const error = await usps.fetch(['F429123456785US']).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CarrierError)
    expect(error).toMatchObject({ failure: 'rate_limited', retryAfterMs: expect.any(Number) })
  })

  it('says what to do when the app lacks the tracking scope, without asking for tracking at all', async () => {
    const noScope = adapter('notrack-app')
    try {
      const tracks = sim.stats().carriers.usps!.trackRequests
      const error = await noScope.fetch(['9400109104250532908587']).catch((e: unknown) => e)
      expect(error).toMatchObject({ failure: 'unauthorized', message: USPS_NO_TRACKING_SCOPE })
      expect(sim.stats().carriers.usps!.trackRequests).toBe(tracks)
    } finally {
      await noScope.close()
    }
  })
})
