import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CarrierError, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { createCarrierSimulator } from '../registry'
import { serviceOf } from './dhl.formats'
import { DHL } from './dhl.plugin'

// The DHL story set through the real adapter and the simulator speaking DHL Unified (DHL Paket's
// shape), one stage at a time (the simulator's clock moves a step between fetches).
const STEP = 60_000
let clock = Date.parse('2026-03-02T08:00:00Z')
const sim = createCarrierSimulator({ stepMs: STEP, now: () => clock, credentials: { dhl: { apiKey: 'key-ok' } } })
let dhl: CarrierAdapter

beforeAll(async () => {
  await sim.start()
  dhl = DHL.createAdapter({ baseUrl: sim.urlOf(DHL.simulator), credentials: { apiKey: 'key-ok' }, timeoutMs: 2000 })
})
afterAll(async () => {
  await dhl.close()
  await sim.stop()
})

async function walk(number: string, stages: number): Promise<CarrierLookup[]> {
  const seen: CarrierLookup[] = []
  for (let i = 0; i < stages; i++) {
    seen.push((await dhl.fetch([number])).get(number)!)
    clock += STEP
  }
  return seen
}

const milestones = (lookups: CarrierLookup[]) => lookups.map((l) => (l.found ? l.snapshot.milestone : 'not_found'))

describe('DHL stories through the simulator', () => {
  it('delivered: announced, processed, arrived, on the vehicle, delivered to a neighbour', async () => {
    const seen = await walk('00340434292135100124', 5)
    expect(milestones(seen)).toEqual(['info_received', 'in_transit', 'in_transit', 'out_for_delivery', 'delivered'])
    const last = seen.at(-1)!
    if (!last.found) throw new Error('expected found')
    expect(last.snapshot.events.map((e) => e.eventCode)).toEqual(['PARCV_NRQRD_VA', 'LDTMV_MVMTV_AA', 'ULFMV_UNLDD_EE', 'SRTED_NRQRD_PO', 'DLVRD_NGHBR_ZU'])
    // The offsets DHL wrote are the events' own.
    expect(last.snapshot.events[0]!.utcOffset).toBe('-05:00')
  })

  it('failed attempt (not home), on the vehicle again, delivered', async () => {
    expect(milestones(await walk('FA123456785DE', 7))).toEqual([
      'info_received',
      'in_transit',
      'in_transit',
      'out_for_delivery',
      'failed_attempt',
      'out_for_delivery',
      'delivered',
    ])
  })

  it('held at a Packstation, then collected', async () => {
    expect(milestones(await walk('HP123456785DE', 5))).toEqual(['info_received', 'in_transit', 'in_transit', 'available_for_pickup', 'delivered'])
  })

  it('returned: the last event says delivered, returnFlag says to the sender', async () => {
    const seen = await walk('RS123456785DE', 5)
    expect(milestones(seen).slice(-2)).toEqual(['failed_attempt', 'returned'])
  })

  it('cancelled by the sender, and an exception', async () => {
    expect(milestones(await walk('CA123456785DE', 2))).toEqual(['info_received', 'cancelled'])
    expect(milestones(await walk('EX123456785DE', 5)).at(-1)).toBe('exception')
  })

  it('a reused number: the shipment whose id it is, not the older one DHL answers beside it', async () => {
    const [first] = await walk('RU123456785DE', 1)
    expect(first).toMatchObject({ found: true, snapshot: { milestone: 'info_received' } })
  })

  it('not found: a 404 problem, pending rather than a failure', async () => {
    expect(await walk('NF123456785DE', 1)).toEqual([{ found: false, reason: 'HTTP 404' }])
  })

  it('says a wrong key is the key, and waits for midnight UTC after a 429 without Retry-After', async () => {
    const wrong = DHL.createAdapter({ baseUrl: sim.urlOf(DHL.simulator), credentials: { apiKey: 'wrong' }, timeoutMs: 2000 })
    try {
      await expect(wrong.fetch(['00340434292135100124'])).rejects.toMatchObject({ failure: 'unauthorized', message: expect.stringContaining('DHL_API_KEY') })
    } finally {
      await wrong.close()
    }
    const error = await dhl.fetch(['F429123456785DE']).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CarrierError)
    expect(error).toMatchObject({ failure: 'rate_limited' })
  })

  it('tells DHL the service a number’s format names', () => {
    expect(serviceOf('9750874965')).toBe('express')
    expect(serviceOf('JJD0099999999')).toBe('express')
    expect(serviceOf('00340434292135100124')).toBe('parcel-de')
    expect(serviceOf('RR123456785DE')).toBe('parcel-de')
    expect(serviceOf('GM2951173225174494')).toBe('ecommerce')
    expect(serviceOf('470800204932')).toBeUndefined()
  })
})
