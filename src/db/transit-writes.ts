import { lanesOf, percentiles, transitBucket, type Delivery, type Lane } from '../domain/transit-times'
import type { Queryable } from './database'
import { statementsOf } from './statements'

/**
 * What a refresh's deliveries add to the transit times (domain/transit-times.ts), in the
 * refresh's transaction: each delivery to its lanes' histograms (every user's and its user's own)
 * and to its user's day and month, then the touched lanes' percentiles read off their histograms again.
 * Rows are written in key order, so that two transactions adding to the same lanes wait for each
 * other instead of deadlocking.
 */
export async function recordDeliveries(tx: Queryable, deliveries: readonly Delivery[]): Promise<void> {
  if (deliveries.length === 0) return
  const buckets = new Map<string, { scope: number; lane: Lane; bucket: number; deliveries: number }>()
  for (const d of deliveries) {
    const bucket = transitBucket(d.transitHours)
    for (const scope of [0, d.userId]) {
      for (const { lane } of lanesOf(d.lane)) {
        const key = JSON.stringify([scope, ...laneKey(lane), bucket])
        const row = buckets.get(key) ?? { scope, lane, bucket, deliveries: 0 }
        row.deliveries++
        buckets.set(key, row)
      }
    }
  }
  const rows = inKeyOrder(buckets)
  await tx.query(
    TRANSIT_ADD_TO_LANES,
    [rows.map((r) => r.scope), ...laneColumns(rows.map((r) => r.lane)), rows.map((r) => r.bucket), rows.map((r) => r.deliveries)],
    'transit_add_to_lanes',
  )
  await tx.query(
    TRANSIT_ADD_TO_DAYS_AND_MONTHS,
    [
      deliveries.map((d) => d.userId),
      deliveries.map((d) => d.deliveredAt.toISOString().slice(0, 10)),
      ...laneColumns(deliveries.map((d) => d.lane)),
      deliveries.map((d) => transitBucket(d.transitHours)),
      deliveries.map((d) => d.withEta),
      deliveries.map((d) => d.onTime),
      deliveries.map((d) => d.passedException),
    ],
    'transit_add_to_days_and_months',
  )
  // The touched lanes, each once (in key order, as the rows were): their whole histograms, then their percentiles.
  const lanes = new Map(rows.map((r) => [scopedLaneKey(r.scope, r.lane), r]))
  const touched = [...lanes.values()]
  const { rows: histogram } = await tx.query<{
    scope_user_id: string
    carrier_code: string
    origin_country: string
    origin_state: string
    destination_country: string
    destination_state: string
    transit_bucket: number
    deliveries: number
  }>(TRANSIT_LANE_HISTOGRAMS, [touched.map((r) => r.scope), ...laneColumns(touched.map((r) => r.lane))], 'transit_lane_histograms')
  const byLane = new Map<string, { bucket: number; deliveries: number }[]>()
  for (const h of histogram) {
    const lane = {
      carrierCode: h.carrier_code,
      originCountry: h.origin_country,
      originState: h.origin_state,
      destinationCountry: h.destination_country,
      destinationState: h.destination_state,
    }
    const key = scopedLaneKey(Number(h.scope_user_id), lane)
    const list = byLane.get(key)
    const bucket = { bucket: h.transit_bucket, deliveries: h.deliveries }
    if (list) list.push(bucket)
    else byLane.set(key, [bucket])
  }
  const summaries = inKeyOrder(lanes).map((r) => ({ ...r, p: percentiles(byLane.get(scopedLaneKey(r.scope, r.lane)) ?? [])! }))
  await tx.query(
    TRANSIT_LANE_SUMMARIES,
    [
      summaries.map((s) => s.scope),
      ...laneColumns(summaries.map((s) => s.lane)),
      summaries.map((s) => s.p.deliveries),
      summaries.map((s) => s.p.p10),
      summaries.map((s) => s.p.median),
      summaries.map((s) => s.p.p90),
    ],
    'transit_lane_summaries',
  )
}

/** A map's values in the order of its keys. */
function inKeyOrder<T>(map: ReadonlyMap<string, T>): T[] {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value)
}

const laneKey = (lane: Lane) => [lane.carrierCode, lane.originCountry, lane.originState, lane.destinationCountry, lane.destinationState]
/** A lane of a scope (0: every user's; else a user's own) as a map key. */
const scopedLaneKey = (scope: number, lane: Lane) => JSON.stringify([scope, ...laneKey(lane)])

function laneColumns(lanes: readonly Lane[]): string[][] {
  return [0, 1, 2, 3, 4].map((i) => lanes.map((lane) => laneKey(lane)[i]!))
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
/** A lane's columns, in the order of the keys of the transit tables. */
export const LANE = 'carrier_code, origin_country, origin_state, destination_country, destination_state'
const TRANSIT_ADD_TO_LANES = sql(
  'transit_add_to_lanes',
  `INSERT INTO transit_lane_buckets AS b (scope_user_id, ${LANE}, transit_bucket, deliveries)
   SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[])
   ON CONFLICT (scope_user_id, ${LANE}, transit_bucket) DO UPDATE SET deliveries = b.deliveries + EXCLUDED.deliveries`,
)
/** Adds the deliveries of `d` to `table`'s rows by `period` (a column of it, and what `d` says of it). */
const addTo = (table: string, period: string, value: string) =>
  `INSERT INTO ${table} AS x (user_id, ${period}, ${LANE}, transit_bucket, deliveries, with_eta, on_time, exceptions)
     SELECT user_id, ${value}, ${LANE}, transit_bucket, count(*), count(*) FILTER (WHERE with_eta), count(*) FILTER (WHERE on_time),
            count(*) FILTER (WHERE passed_exception)
       FROM d
      GROUP BY user_id, ${value}, ${LANE}, transit_bucket
      ORDER BY user_id, ${value}, ${LANE}, transit_bucket
     ON CONFLICT (user_id, ${period}, ${LANE}, transit_bucket) DO UPDATE
        SET deliveries = x.deliveries + EXCLUDED.deliveries, with_eta = x.with_eta + EXCLUDED.with_eta,
            on_time = x.on_time + EXCLUDED.on_time, exceptions = x.exceptions + EXCLUDED.exceptions`
// Each delivery to its day and to its month, in one round trip.
const TRANSIT_ADD_TO_DAYS_AND_MONTHS = sql(
  'transit_add_to_days_and_months',
  `WITH d AS (
     SELECT * FROM unnest($1::bigint[], $2::date[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::boolean[], $10::boolean[], $11::boolean[])
              AS d (user_id, delivered_on, ${LANE}, transit_bucket, with_eta, on_time, passed_exception)
   ),
   days AS (
     ${addTo('transit_days', 'delivered_on', 'delivered_on')}
   )
   ${addTo('transit_months', 'month', "date_trunc('month', delivered_on)::date")}`,
)
const TRANSIT_LANE_HISTOGRAMS = sql(
  'transit_lane_histograms',
  `SELECT b.scope_user_id, b.carrier_code, b.origin_country, b.origin_state, b.destination_country, b.destination_state, b.transit_bucket, b.deliveries
     FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS l (scope_user_id, ${LANE})
     JOIN transit_lane_buckets b USING (scope_user_id, ${LANE})`,
)
const TRANSIT_LANE_SUMMARIES = sql(
  'transit_lane_summaries',
  `INSERT INTO transit_lanes AS l (scope_user_id, ${LANE}, deliveries, p10_hours, median_hours, p90_hours)
   SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::float8[], $9::float8[], $10::float8[])
   ON CONFLICT (scope_user_id, ${LANE}) DO UPDATE
      SET deliveries = EXCLUDED.deliveries, p10_hours = EXCLUDED.p10_hours, median_hours = EXCLUDED.median_hours, p90_hours = EXCLUDED.p90_hours`,
)
