import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordDeliveries } from '../../db/transit-writes'
import type { Delivery, Lane } from '../../domain/transit-times'
import { createTestApp, type TestApp } from '../../../test/support/test-app'

// The transit-time analytics through HTTP, over deliveries as the refresh records them (the
// refresh's own path is in services/predicted-delivery.test.ts).
let t: TestApp
let shop: { userId: number; token: string }
let other: { userId: number; token: string }

const MEMPHIS_TO_LA: Lane = { carrierCode: 'UPS', originCountry: 'US', originState: 'TN', destinationCountry: 'US', destinationState: 'CA' }
const MEMPHIS_TO_NY: Lane = { ...MEMPHIS_TO_LA, destinationState: 'NY' }
const TO_SINGAPORE: Lane = { carrierCode: 'FEDEX', originCountry: 'US', originState: 'TN', destinationCountry: 'SG', destinationState: '' }

function delivery(userId: number, lane: Lane, day: string, transitHours: number, extra: Partial<Delivery> = {}): Delivery {
  return { userId, lane, deliveredAt: new Date(`${day}T15:00:00Z`), transitHours, withEta: false, onTime: false, passedException: false, ...extra }
}

beforeAll(async () => {
  t = await createTestApp()
  shop = await t.createUser('shop')
  other = await t.createUser('other')
  const deliveries: Delivery[] = [
    // Ten to Los Angeles in 30-39 hours on the 1st; four of them had an ETA, three kept it.
    ...Array.from({ length: 10 }, (_, i) =>
      delivery(shop.userId, MEMPHIS_TO_LA, '2026-10-01', 30 + i, i < 4 ? { withEta: true, onTime: i < 3 } : { passedException: i === 9 }),
    ),
    // Four to New York, on the 2nd and the 20th.
    ...[20, 22, 24, 26].map((h, i) => delivery(shop.userId, MEMPHIS_TO_NY, i < 2 ? '2026-10-02' : '2026-10-20', h)),
    // Two to Singapore, on the 3rd.
    delivery(shop.userId, TO_SINGAPORE, '2026-10-03', 100),
    delivery(shop.userId, TO_SINGAPORE, '2026-10-03', 120),
    // Another user's, on a lane of the shop's: never in the shop's answer.
    ...Array.from({ length: 5 }, () => delivery(other.userId, MEMPHIS_TO_LA, '2026-10-01', 200)),
  ]
  await t.db.transaction((tx) => recordDeliveries(tx, deliveries))
})
afterAll(() => t.close())

const get = (query: string, token = shop.token) => t.as(token, { method: 'GET', url: `/openapi/analytics/transit-times${query}` })

describe('GET /openapi/analytics/transit-times', () => {
  it("answers per lane, the busiest first, over the caller's own deliveries", async () => {
    const res = await get('')
    expect(res.statusCode).toBe(200)
    const { lanes } = res.json().data
    expect(lanes.map((l: { destinationState: string; delivered: number }) => [l.destinationState, l.delivered])).toEqual([
      ['CA', 10],
      ['NY', 4],
      ['', 2],
    ])
    expect(lanes[0]).toEqual({
      carrierCode: 'UPS',
      originCountry: 'US',
      originState: 'TN',
      destinationCountry: 'US',
      destinationState: 'CA',
      delivered: 10,
      transitHours: { p10: 31, median: 35, p90: 39 },
      onTimeRate: 0.75,
      exceptionRate: 0.1,
    })
    // No ETA ever given: no on-time rate, rather than a rate of zero.
    expect(lanes[1]).toMatchObject({ onTimeRate: null, exceptionRate: 0 })
    const theirs = (await get('', other.token)).json().data.lanes
    expect(theirs).toEqual([expect.objectContaining({ destinationState: 'CA', delivered: 5, transitHours: { p10: 198.6, median: 201, p90: 203.4 } })])
  })

  it('filters by carrier, countries and delivery days, and groups by carrier', async () => {
    const lanes = async (query: string) => (await get(query)).json().data.lanes as { carrierCode: string; destinationState: string | null; delivered: number }[]
    expect((await lanes('?carrierCode=fedex')).map((l) => l.carrierCode)).toEqual(['FEDEX'])
    expect((await lanes('?destinationCountry=SG&originCountry=US')).map((l) => l.delivered)).toEqual([2])
    // Alike in deliveries: by carrier, then lane.
    expect((await lanes('?deliveredFrom=2026-10-02&deliveredTo=2026-10-03')).map((l) => [l.destinationState, l.delivered])).toEqual([
      ['', 2],
      ['NY', 2],
    ])
    expect((await lanes('?deliveredFrom=2026-10-21')).length).toBe(0)
    const byCarrier = await lanes('?groupBy=carrier')
    expect(byCarrier).toEqual([
      expect.objectContaining({ carrierCode: 'UPS', originCountry: null, destinationState: null, delivered: 14 }),
      expect.objectContaining({ carrierCode: 'FEDEX', delivered: 2 }),
    ])
  })

  it.each([
    ['?deliveredFrom=2026-02-30', 'deliveredFrom'],
    ['?deliveredFrom=2026-10-01T00:00:00Z', 'deliveredFrom'],
    ['?deliveredFrom=2026-10-05&deliveredTo=2026-10-01', 'deliveredTo'],
    ['?groupBy=week', 'groupBy'],
    ['?originCountry=', 'originCountry'],
    ['?lane=US', 'lane'],
  ])('refuses %s in the envelope', async (query, field) => {
    const res = await get(query)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 400, data: { error: 'validation_error' } })
    expect(res.json().data.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]))
  })

  it('needs a token', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/openapi/analytics/transit-times' })).statusCode).toBe(401)
  })
})
