import type { LanePercentiles, TransitFilters, TransitRepository, WeekOnTime } from '../db/transit.repository'
import { invalid } from '../domain/errors'
import { laneReports, type LaneReport, type TransitGrouping } from '../domain/transit-report'

/** The console's picture of transit times: the busiest lanes of every user, and each carrier's on-time rate per week. */
export interface TransitOverview {
  lanes: LanePercentiles[]
  weeks: string[]
  onTime: WeekOnTime[]
}

/** How many weeks of on-time rates the console shows, and how many states' lanes. */
const CONSOLE_WEEKS = 12
const CONSOLE_LANES = 25

/** The transit-time analytics (docs/api.md, "Transit-time analytics") and their console page. */
export class TransitService {
  constructor(
    private readonly transit: TransitRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async report(userId: number, grouping: TransitGrouping, filters: TransitFilters): Promise<LaneReport[]> {
    if (filters.deliveredFrom && filters.deliveredTo && filters.deliveredFrom > filters.deliveredTo)
      throw invalid([{ field: 'deliveredTo', message: 'must not be before deliveredFrom' }])
    return laneReports(await this.transit.counts(userId, grouping, { ...filters, carrierCode: filters.carrierCode?.toUpperCase() }))
  }

  async overview(): Promise<TransitOverview> {
    // The Monday (UTC) that starts the first of the weeks shown, this one the last.
    const today = this.now()
    const monday = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - ((today.getUTCDay() + 6) % 7)))
    const weeks = Array.from({ length: CONSOLE_WEEKS }, (_, i) =>
      new Date(monday.getTime() - (CONSOLE_WEEKS - 1 - i) * 7 * 86_400_000).toISOString().slice(0, 10),
    )
    const [lanes, onTime] = await Promise.all([this.transit.busiestLanes(CONSOLE_LANES), this.transit.weeklyOnTime(weeks[0]!)])
    return { lanes, weeks, onTime }
  }
}
