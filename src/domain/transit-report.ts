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
    const rows = byLane.get(key)
    if (rows) rows.push(c)
    else byLane.set(key, [c])
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

/**
 * How a range of delivery days (YYYY-MM-DD, inclusive, either end open) is read: its whole months
 * from the month rows (`months`: the first days of the first and last whole month, null for an
 * open end; null for none), the days of the months it cuts from the day rows (at most two spans).
 */
export interface RangeReading {
  months: { from: string | null; to: string | null } | null
  days: [string, string][]
}

const day = (date: Date) => date.toISOString().slice(0, 10)
const utc = (text: string) => new Date(`${text}T00:00:00Z`)
const monthStart = (text: string) => `${text.slice(0, 7)}-01`
const shiftMonth = (text: string, months: number) => {
  const d = utc(monthStart(text))
  return day(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1)))
}
const lastOfMonth = (text: string) => day(new Date(utc(shiftMonth(text, 1)).getTime() - 86_400_000))

export function rangeReading(from: string | undefined, to: string | undefined): RangeReading {
  const first = from === undefined ? null : monthStart(from) === from ? from : shiftMonth(from, 1)
  const last = to === undefined ? null : lastOfMonth(to) === to ? monthStart(to) : shiftMonth(to, -1)
  if (from !== undefined && to !== undefined && first! > last!) return { months: null, days: [[from, to]] }
  const days: [string, string][] = []
  if (from !== undefined && first !== from) days.push([from, lastOfMonth(from)])
  if (to !== undefined && lastOfMonth(to) !== to) days.push([monthStart(to), to])
  return { months: { from: first, to: last }, days }
}
