import type { TransitFilters, TransitRepository } from '../db/transit.repository'
import { invalid } from '../domain/errors'
import { laneReports, type LaneReport, type TransitGrouping } from '../domain/transit-report'

/** The transit-time analytics over the caller's own delivered tasks (docs/api.md, "Transit-time analytics"). */
export class TransitService {
  constructor(private readonly transit: TransitRepository) {}

  async report(userId: number, grouping: TransitGrouping, filters: TransitFilters): Promise<LaneReport[]> {
    if (filters.deliveredFrom && filters.deliveredTo && filters.deliveredFrom > filters.deliveredTo)
      throw invalid([{ field: 'deliveredTo', message: 'must not be before deliveredFrom' }])
    return laneReports(await this.transit.counts(userId, grouping, { ...filters, carrierCode: filters.carrierCode?.toUpperCase() }))
  }
}
