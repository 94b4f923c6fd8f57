import { rangeReading, type TransitCount, type TransitGrouping } from '../domain/transit-report'
import type { Database } from './database'
import { statementsOf } from './statements'
import { LANE } from './transit-writes'

export interface TransitFilters {
  carrierCode?: string
  originCountry?: string
  destinationCountry?: string
  /** Delivery days (UTC, YYYY-MM-DD), both inclusive. */
  deliveredFrom?: string
  deliveredTo?: string
}

interface TransitCountRow {
  carrier_code: string
  origin_country: string | null
  origin_state: string | null
  destination_country: string | null
  destination_state: string | null
  transit_bucket: number
  deliveries: number
  with_eta: number
  on_time: number
  exceptions: number
}

/** A lane's percentiles over every user's deliveries (transit_lanes, scope 0). */
export interface LanePercentiles {
  carrierCode: string
  originCountry: string
  originState: string
  destinationCountry: string
  destinationState: string
  deliveries: number
  p10Hours: number
  medianHours: number
  p90Hours: number
}

/** A carrier's deliveries of one week (from Monday, UTC) that had an ETA, and how many of them were on time. */
export interface WeekOnTime {
  carrierCode: string
  week: string
  withEta: number
  onTime: number
}

/** The transit times as the analytics and the console read them: transit_days over a range of its key, transit_lanes by key. */
export class TransitRepository {
  constructor(private readonly db: Database) {}

  /** The busiest lanes of every user's deliveries: each carrier's own lane and its busiest states' lanes. */
  async busiestLanes(limit: number): Promise<LanePercentiles[]> {
    const rows = await this.db.query<{
      carrier_code: string
      origin_country: string
      origin_state: string
      destination_country: string
      destination_state: string
      deliveries: number
      p10_hours: number
      median_hours: number
      p90_hours: number
    }>(TRANSIT_BUSIEST_LANES, [limit], 'transit_busiest_lanes')
    return rows.map((r) => ({
      carrierCode: r.carrier_code,
      originCountry: r.origin_country,
      originState: r.origin_state,
      destinationCountry: r.destination_country,
      destinationState: r.destination_state,
      deliveries: r.deliveries,
      p10Hours: r.p10_hours,
      medianHours: r.median_hours,
      p90Hours: r.p90_hours,
    }))
  }

  /** Every user's on-time counts per carrier and week, for the weeks since `from` (a Monday). */
  async weeklyOnTime(from: string): Promise<WeekOnTime[]> {
    const rows = await this.db.query<{ carrier_code: string; week: string; with_eta: number; on_time: number }>(
      TRANSIT_WEEKLY_ON_TIME,
      [from],
      'transit_weekly_on_time',
    )
    return rows.map((r) => ({ carrierCode: r.carrier_code, week: r.week, withEta: r.with_eta, onTime: r.on_time }))
  }

  async counts(userId: number, grouping: TransitGrouping, f: TransitFilters): Promise<TransitCount[]> {
    const { months, days } = rangeReading(f.deliveredFrom, f.deliveredTo)
    const rows = await this.db.query<TransitCountRow>(
      grouping === 'lane' ? TRANSIT_COUNTS_BY_LANE : TRANSIT_COUNTS_BY_CARRIER,
      [
        userId,
        months !== null,
        months?.from ?? null,
        months?.to ?? null,
        f.carrierCode ?? null,
        f.originCountry ?? null,
        f.destinationCountry ?? null,
        days[0]?.[0] ?? null,
        days[0]?.[1] ?? null,
        days[1]?.[0] ?? null,
        days[1]?.[1] ?? null,
      ],
      // Unnamed: planned for its range each time. A generic plan, made for any range, read a year
      // of months four times slower (40 → 170 ms over 48,000 month rows).
    )
    return rows.map((r) => ({
      lane: {
        carrierCode: r.carrier_code,
        originCountry: r.origin_country,
        originState: r.origin_state,
        destinationCountry: r.destination_country,
        destinationState: r.destination_state,
      },
      bucket: r.transit_bucket,
      deliveries: r.deliveries,
      withEta: r.with_eta,
      onTime: r.on_time,
      exceptions: r.exceptions,
    }))
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
// The user's whole months in range, and the days of the months the range cuts (at most two
// spans): each a range of its table's key; the other filters on each row.
const FILTERS = `($5::text IS NULL OR carrier_code = $5) AND ($6::text IS NULL OR origin_country = $6) AND ($7::text IS NULL OR destination_country = $7)`
const SUMS = 'sum(deliveries)::int AS deliveries, sum(with_eta)::int AS with_eta, sum(on_time)::int AS on_time, sum(exceptions)::int AS exceptions'
// Each part its own range of its table's key, so that an unused one (null bounds) reads nothing
// under a generic plan too.
const COUNTS = `${LANE}, transit_bucket, deliveries, with_eta, on_time, exceptions`
const IN_RANGE = `(SELECT ${COUNTS} FROM transit_months
     WHERE $2::boolean AND user_id = $1 AND month BETWEEN COALESCE($3::date, '-infinity') AND COALESCE($4::date, 'infinity') AND ${FILTERS}
    UNION ALL
    SELECT ${COUNTS} FROM transit_days WHERE user_id = $1 AND delivered_on BETWEEN $8::date AND $9::date AND ${FILTERS}
    UNION ALL
    SELECT ${COUNTS} FROM transit_days WHERE user_id = $1 AND delivered_on BETWEEN $10::date AND $11::date AND ${FILTERS}) AS counted`
export const TRANSIT_COUNTS_BY_LANE = sql(
  'transit_counts_by_lane',
  `SELECT ${LANE}, transit_bucket, ${SUMS}
     FROM ${IN_RANGE}
    GROUP BY ${LANE}, transit_bucket`,
)
export const TRANSIT_COUNTS_BY_CARRIER = sql(
  'transit_counts_by_carrier',
  `SELECT carrier_code, NULL AS origin_country, NULL AS origin_state, NULL AS destination_country, NULL AS destination_state, transit_bucket, ${SUMS}
     FROM ${IN_RANGE}
    GROUP BY carrier_code, transit_bucket`,
)
const TRANSIT_BUSIEST_LANES = sql(
  'transit_busiest_lanes',
  `(SELECT carrier_code, origin_country, origin_state, destination_country, destination_state, deliveries, p10_hours, median_hours, p90_hours
      FROM transit_lanes WHERE scope_user_id = 0 AND origin_country = '*')
   UNION ALL
   (SELECT carrier_code, origin_country, origin_state, destination_country, destination_state, deliveries, p10_hours, median_hours, p90_hours
      FROM transit_lanes WHERE scope_user_id = 0 AND origin_country <> '*' AND origin_state <> '*'
     ORDER BY deliveries DESC, carrier_code, origin_country, origin_state, destination_country, destination_state
     LIMIT $1)`,
)
const TRANSIT_WEEKLY_ON_TIME = sql(
  'transit_weekly_on_time',
  `SELECT carrier_code, to_char(date_trunc('week', delivered_on), 'YYYY-MM-DD') AS week, sum(with_eta)::int AS with_eta, sum(on_time)::int AS on_time
     FROM transit_days
    WHERE delivered_on >= $1::date
    GROUP BY carrier_code, week
    ORDER BY carrier_code, week`,
)
