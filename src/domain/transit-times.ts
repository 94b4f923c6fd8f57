import type { Milestone } from './milestones'
import type { CarrierEvent } from './tracking-update'

/**
 * Transit times, learned from delivered tasks, for the predicted delivery (the full task's
 * `predictedDeliveryAt` and `prediction`) and the transit-time analytics. Pure: the refresh
 * advances a task's transit facts as its events arrive (`advanceTransit`); a delivery it learns
 * from adds to its lanes' histograms (`laneRows`); a lane's percentiles are read off its histogram
 * (`percentiles`).
 *
 * Transit runs from the first scan (the earliest event whose milestone is past info_received) to
 * the earliest delivered event. What is not learned from, and why (docs/api.md says the same):
 * - a delivery whose delivered event is not after the first scan (a delivery before pickup, or a
 *   delivery as the first scan): no transit to measure, never a negative one;
 * - a second delivery of the same task (a reused number): each task counts once;
 * - a transit past MAX_HOURS counts as MAX_HOURS, so one absurd date moves a lane's tail by one
 *   delivery's weight, never its median.
 */

/** The milestones of a scan: the parcel is in the carrier's hands (past info_received). */
const SCANNED: ReadonlySet<Milestone> = new Set([
  'in_transit',
  'out_for_delivery',
  'available_for_pickup',
  'failed_attempt',
  'exception',
  'delivered',
  'returned',
])

/** The fewest deliveries a lane needs before a prediction rests on it. */
export const MIN_LANE_DELIVERIES = 20

/** Transit times are counted up to 60 days; longer ones count as 60 days. */
export const MAX_HOURS = 1440

/** A task's transit facts, kept on its row as its events arrive. */
export interface TransitState {
  /** The first scan's time; null before it. */
  startedAt: Date | null
  /** The first estimated delivery the carrier gave; null until one. */
  firstEstimatedDeliveryAt: Date | null
  /** Whether the task has passed through an exception. */
  passedException: boolean
  /** Whether its delivery has been learned from (or judged not learnable), so that it counts once. */
  counted: boolean
}

export const NO_TRANSIT: TransitState = { startedAt: null, firstEstimatedDeliveryAt: null, passedException: false, counted: false }

/** Where a parcel went: each field as the carrier's mapper wrote it, "" when the carrier did not say. */
export interface Lane {
  carrierCode: string
  originCountry: string
  originState: string
  destinationCountry: string
  destinationState: string
}

/** A delivery learned from. */
export interface Delivery {
  userId: number
  lane: Lane
  deliveredAt: Date
  transitHours: number
  /** The carrier gave an ETA before; onTime: delivered by the first one. */
  withEta: boolean
  onTime: boolean
  passedException: boolean
}

export interface TransitChange {
  newEvents: readonly CarrierEvent[]
  /** The task's milestone after the change. */
  milestone: Milestone
  /** The ETA the answer gave, if any. */
  estimatedDeliveryAt: Date | undefined
}

/** A task's transit facts after a change, and the delivery to learn from if the change delivered it. */
export function advanceTransit(before: TransitState, change: TransitChange): { state: TransitState; delivered?: { at: Date; transitHours: number } } {
  let startedAt = before.startedAt
  let deliveredAt: Date | undefined
  let passedException = before.passedException || change.milestone === 'exception' || change.milestone === 'failed_attempt'
  for (const event of change.newEvents) {
    if (!SCANNED.has(event.milestone as Milestone)) continue
    if (startedAt === null || event.eventTime < startedAt) startedAt = event.eventTime
    if (event.milestone === 'delivered' && (deliveredAt === undefined || event.eventTime < deliveredAt)) deliveredAt = event.eventTime
    if (event.milestone === 'exception' || event.milestone === 'failed_attempt') passedException = true
  }
  const state: TransitState = {
    startedAt,
    firstEstimatedDeliveryAt: before.firstEstimatedDeliveryAt ?? change.estimatedDeliveryAt ?? null,
    passedException,
    counted: before.counted,
  }
  if (before.counted || change.milestone !== 'delivered' || deliveredAt === undefined) return { state }
  state.counted = true
  if (startedAt === null || deliveredAt <= startedAt) return { state }
  return { state, delivered: { at: deliveredAt, transitHours: Math.min(MAX_HOURS, (deliveredAt.getTime() - startedAt.getTime()) / 3_600_000) } }
}

/**
 * A lane's key field from an address's: as the carrier's mapper wrote it, "" when absent. Not
 * normalised further, so that the database, which reads the stored addresses' fields when it
 * looks a task's lane up, finds exactly the key written here.
 */
export const laneField = (value: string | undefined | null): string => value ?? ''

/** Written in a lane's field for "any": the wider lanes. */
export const ANY = '*'

/** What a prediction rests on, narrowest first: the lane of the origin's and destination's states, of their countries, the carrier's. */
export const BASES = ['states', 'countries', 'carrier'] as const
export type Basis = (typeof BASES)[number]

/** The lanes a delivery adds to, narrowest first: its states' lane and its countries' lane when both countries are known, and its carrier's. */
export function lanesOf(lane: Lane): { basis: Basis; lane: Lane }[] {
  const carrier = {
    basis: 'carrier' as const,
    lane: { carrierCode: lane.carrierCode, originCountry: ANY, originState: ANY, destinationCountry: ANY, destinationState: ANY },
  }
  if (lane.originCountry === '' || lane.destinationCountry === '') return [carrier]
  return [{ basis: 'states', lane }, { basis: 'countries', lane: { ...lane, originState: ANY, destinationState: ANY } }, carrier]
}

/**
 * A transit time's bucket (its lower bound, in hours): by the hour up to three days, by six hours
 * up to two weeks, by the day after. A lane keeps a few dozen buckets however many deliveries it
 * has, and a percentile read from them is within an hour where most parcels arrive.
 */
export function transitBucket(hours: number): number {
  const h = Math.max(0, Math.min(MAX_HOURS, hours))
  if (h < 72) return Math.floor(h)
  if (h < 336) return Math.floor(h / 6) * 6
  return Math.min(MAX_HOURS, Math.floor(h / 24) * 24)
}

export function bucketWidth(bucket: number): number {
  return bucket < 72 ? 1 : bucket < 336 ? 6 : 24
}

export interface Percentiles {
  deliveries: number
  p10: number
  median: number
  p90: number
}

/** The 10th, 50th and 90th percentile (hours) of a histogram of buckets, interpolated within a bucket; undefined when it is empty. */
export function percentiles(buckets: readonly { bucket: number; deliveries: number }[]): Percentiles | undefined {
  const sorted = [...buckets].filter((b) => b.deliveries > 0).sort((a, b) => a.bucket - b.bucket)
  const total = sorted.reduce((sum, b) => sum + b.deliveries, 0)
  if (total === 0) return undefined
  const at = (q: number) => {
    const rank = q * total
    let below = 0
    for (const b of sorted) {
      if (below + b.deliveries >= rank) return b.bucket + (bucketWidth(b.bucket) * (rank - below)) / b.deliveries
      below += b.deliveries
    }
    const last = sorted[sorted.length - 1]!
    return last.bucket + bucketWidth(last.bucket)
  }
  return { deliveries: total, p10: at(0.1), median: at(0.5), p90: at(0.9) }
}
