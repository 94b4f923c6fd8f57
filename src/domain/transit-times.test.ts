import { describe, expect, it } from 'vitest'
import type { Milestone } from './milestones'
import { advanceTransit, lanesOf, MAX_HOURS, NO_TRANSIT, percentiles, transitBucket } from './transit-times'
import type { CarrierEvent } from './tracking-update'

const at = (iso: string) => new Date(iso)
const event = (milestone: Milestone, iso: string): CarrierEvent =>
  ({ eventTime: at(iso), milestone, utcOffset: null, key: `${milestone}${iso}` }) as unknown as CarrierEvent

describe('a task’s transit', () => {
  it('starts at the first scan, not at the label, and learns the delivery once', () => {
    const label = advanceTransit(NO_TRANSIT, {
      newEvents: [event('info_received', '2026-03-01T08:00:00Z')],
      milestone: 'info_received',
      estimatedDeliveryAt: undefined,
    })
    expect(label.state.startedAt).toBeNull()
    const moving = advanceTransit(label.state, {
      newEvents: [event('in_transit', '2026-03-01T18:00:00Z')],
      milestone: 'in_transit',
      estimatedDeliveryAt: at('2026-03-04T23:59:59Z'),
    })
    expect(moving.state).toMatchObject({ startedAt: at('2026-03-01T18:00:00Z'), firstEstimatedDeliveryAt: at('2026-03-04T23:59:59Z') })
    // A later ETA does not replace the first one, which on-time is judged by.
    const later = advanceTransit(moving.state, { newEvents: [], milestone: 'in_transit', estimatedDeliveryAt: at('2026-03-06T23:59:59Z') })
    expect(later.state.firstEstimatedDeliveryAt).toEqual(at('2026-03-04T23:59:59Z'))
    const delivered = advanceTransit(later.state, {
      newEvents: [event('delivered', '2026-03-03T12:00:00Z')],
      milestone: 'delivered',
      estimatedDeliveryAt: undefined,
    })
    expect(delivered.delivered).toEqual({ at: at('2026-03-03T12:00:00Z'), transitHours: 42 })
    expect(delivered.state.counted).toBe(true)
    // The number reused and delivered again: not learned twice.
    const again = advanceTransit(delivered.state, {
      newEvents: [event('delivered', '2026-05-03T12:00:00Z')],
      milestone: 'delivered',
      estimatedDeliveryAt: undefined,
    })
    expect(again.delivered).toBeUndefined()
  })

  it('takes events out of order by their times', () => {
    const { delivered, state } = advanceTransit(NO_TRANSIT, {
      newEvents: [event('delivered', '2026-03-05T10:00:00Z'), event('in_transit', '2026-03-03T10:00:00Z'), event('in_transit', '2026-03-02T10:00:00Z')],
      milestone: 'delivered',
      estimatedDeliveryAt: undefined,
    })
    expect(state.startedAt).toEqual(at('2026-03-02T10:00:00Z'))
    expect(delivered?.transitHours).toBe(72)
  })

  it('learns nothing from a delivery before pickup or a delivery as the first scan, and never a negative time', () => {
    const before = advanceTransit(NO_TRANSIT, {
      newEvents: [event('in_transit', '2026-03-05T10:00:00Z'), event('delivered', '2026-03-04T10:00:00Z')],
      milestone: 'delivered',
      estimatedDeliveryAt: undefined,
    })
    expect(before.delivered).toBeUndefined()
    expect(before.state.counted).toBe(true)
    const only = advanceTransit(NO_TRANSIT, { newEvents: [event('delivered', '2026-03-04T10:00:00Z')], milestone: 'delivered', estimatedDeliveryAt: undefined })
    expect(only.delivered).toBeUndefined()
  })

  it('caps an absurd transit and notes an exception on the way', () => {
    const { delivered, state } = advanceTransit(NO_TRANSIT, {
      newEvents: [event('in_transit', '2016-03-01T00:00:00Z'), event('exception', '2016-03-02T00:00:00Z'), event('delivered', '2026-03-01T00:00:00Z')],
      milestone: 'delivered',
      estimatedDeliveryAt: undefined,
    })
    expect(delivered?.transitHours).toBe(MAX_HOURS)
    expect(state.passedException).toBe(true)
  })
})

describe('lanes and their percentiles', () => {
  it('adds a delivery to its states’, countries’ and carrier’s lanes, only the carrier’s without both countries', () => {
    const lane = { carrierCode: 'UPS', originCountry: 'US', originState: 'TN', destinationCountry: 'US', destinationState: 'CA' }
    expect(lanesOf(lane).map((l) => l.basis)).toEqual(['states', 'countries', 'carrier'])
    expect(lanesOf(lane)[1]!.lane).toMatchObject({ originState: '*', destinationState: '*' })
    expect(lanesOf({ ...lane, destinationCountry: '' }).map((l) => l.basis)).toEqual(['carrier'])
  })

  it('buckets by the hour, then six hours, then days', () => {
    expect([0.5, 71.9, 72, 77.9, 335, 336, 400, 5000].map(transitBucket)).toEqual([0, 71, 72, 72, 330, 336, 384, MAX_HOURS])
  })

  it('reads percentiles off a histogram, one outlier moving no median', () => {
    const buckets = Array.from({ length: 10 }, (_, i) => ({ bucket: 20 + i, deliveries: 10 }))
    const p = percentiles(buckets)!
    expect(p).toMatchObject({ deliveries: 100, p10: 21, median: 25, p90: 29 })
    const withOutlier = percentiles([...buckets, { bucket: MAX_HOURS, deliveries: 1 }])!
    expect(withOutlier.median).toBeCloseTo(25, 0)
    expect(percentiles([])).toBeUndefined()
  })
})
