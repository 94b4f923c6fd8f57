import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CarrierAdapter, CarrierLookup } from '../carrier'
import { createCarrierSimulator } from '../registry'
import { UPS } from './ups.plugin'

// The UPS story set through the real adapter and the simulator speaking UPS, one stage at a time
// (the simulator's clock moves a step between fetches). A story is chosen by what follows "1Z".
const STEP = 60_000
let clock = Date.parse('2026-03-02T08:00:00Z')
const sim = createCarrierSimulator({ stepMs: STEP, now: () => clock })
let ups: CarrierAdapter

beforeAll(async () => {
  await sim.start()
  ups = UPS.createAdapter({ baseUrl: sim.urlOf(UPS.simulator), credentials: { clientId: 'id', clientSecret: 'secret' }, timeoutMs: 2000 })
})
afterAll(async () => {
  await ups.close()
  await sim.stop()
})

async function walk(number: string, stages: number): Promise<CarrierLookup[]> {
  const seen: CarrierLookup[] = []
  for (let i = 0; i < stages; i++) {
    seen.push((await ups.fetch([number])).get(number)!)
    clock += STEP
  }
  return seen
}

const milestones = (lookups: CarrierLookup[]) => lookups.map((l) => (l.found ? l.snapshot.milestone : 'not_found'))

describe('UPS stories through the simulator', () => {
  it('delivered: label, pickup, transit, out for delivery (021), delivered', async () => {
    const seen = await walk('1ZDL0000000001', 5)
    expect(milestones(seen)).toEqual(['info_received', 'in_transit', 'in_transit', 'out_for_delivery', 'delivered'])
    const last = seen.at(-1)!
    if (!last.found) throw new Error('expected found')
    expect(last.snapshot.events.map((e) => e.eventCode)).toEqual(['003', '038', '005', '021', '011'])
    expect(last.snapshot.carrierStatus).toBe('DELIVERED')
  })

  it('held at an access point (161), then picked up', async () => {
    expect(milestones(await walk('1ZHP0000000002', 5))).toEqual(['info_received', 'in_transit', 'in_transit', 'available_for_pickup', 'delivered'])
  })

  it('failed attempt (022) moves the ETA a day, out again (072), delivered', async () => {
    const seen = await walk('1ZFA0000000003', 7)
    expect(milestones(seen)).toEqual(['info_received', 'in_transit', 'in_transit', 'out_for_delivery', 'failed_attempt', 'out_for_delivery', 'delivered'])
    const eta = (i: number) => (seen[i]!.found ? seen[i]!.snapshot.estimatedDeliveryAt : null)
    expect(eta(4)!.getTime() - eta(3)!.getTime()).toBe(86_400_000)
  })

  it('exception, return to sender and cancelled', async () => {
    expect(milestones(await walk('1ZEX0000000004', 5)).at(-1)).toBe('exception')
    expect(milestones(await walk('1ZRS0000000005', 5)).slice(-2)).toEqual(['failed_attempt', 'returned'])
    expect(milestones(await walk('1ZCA0000000006', 2))).toEqual(['info_received', 'cancelled'])
  })

  it('not found: HTTP 200 with TW0001', async () => {
    expect(await walk('1ZNF0000000007', 1)).toEqual([{ found: false, reason: 'TW0001' }])
  })

  it('shares one token across requests', async () => {
    const before = sim.stats().carriers.ups!.tokenRequests
    await walk('1ZDL0000000008', 3)
    expect(sim.stats().carriers.ups!.tokenRequests).toBe(before)
  })
})
