import { percentiles, type Lane } from './transit-times'

/**
 * The transit-time analytics (GET /openapi/analytics/transit-times): a user's deliveries summed
 * per lane or per carrier over a range of delivery days, each with its transit-time percentiles,
 * on-time rate and exception rate. Pure: the rows come summed per lane and transit-time bucket.
 */

export const TRANSIT_GROUPINGS = ['lane', 'carrier'] as const
export type TransitGrouping = (typeof TRANSIT_GROUPINGS)[number]

/** The most lanes an answer lists, the busiest first. */
export const MAX_REPORT_LANES = 1000

/** A lane's (or, grouped by carrier, a carrier's: its lane fields null) deliveries in one transit-time bucket. */
export interface TransitCount {
  lane: { [K in keyof Lane]: K extends 'carrierCode' ? string : string | null }
  bucket: number
  deliveries: number
  withEta: number
  onTime: number
  exceptions: number
}

export interface LaneReport {
  carrierCode: string
  originCountry: string | null
  originState: string | null
  destinationCountry: string | null
  destinationState: string | null
  delivered: number
  transitHours: { p10: number; median: number; p90: number }
  /** Of the deliveries that had an ETA, the share delivered by the first one; null when none had one. */
  onTimeRate: number | null
  exceptionRate: number
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places

export function laneReports(counts: readonly TransitCount[]): LaneReport[] {
  const byLane = new Map<string, TransitCount[]>()
  for (const c of counts) {
    const key = JSON.stringify(c.lane)
    byLane.set(key, [...(byLane.get(key) ?? []), c])
  }
  const reports: LaneReport[] = []
  for (const rows of byLane.values()) {
    const p = percentiles(rows)!
    const sum = (f: (c: TransitCount) => number) => rows.reduce((total, c) => total + f(c), 0)
    const withEta = sum((c) => c.withEta)
    reports.push({
      ...rows[0]!.lane,
      delivered: p.deliveries,
      transitHours: { p10: round(p.p10, 1), median: round(p.median, 1), p90: round(p.p90, 1) },
      onTimeRate: withEta === 0 ? null : round(sum((c) => c.onTime) / withEta, 4),
      exceptionRate: round(sum((c) => c.exceptions) / p.deliveries, 4),
    })
  }
  const key = (r: LaneReport) => [r.carrierCode, r.originCountry, r.originState, r.destinationCountry, r.destinationState].join('\u0000')
  return reports.sort((a, b) => b.delivered - a.delivered || (key(a) < key(b) ? -1 : 1)).slice(0, MAX_REPORT_LANES)
}
