import type { StandardStatus } from '../../domain/statuses'
import { StatusTable } from '../status-table'

/**
 * ASSUMED: status_code values by milestone (each milestone's standard status follows). Unknown
 * codes keep the previous status and milestone.
 */
export const UPARCEL_STATUSES = new StatusTable({
  info_received: ['POSTED'],
  pending: ['ASSIGNED', 'ACCEPTED'],
  in_transit: ['PICKED_UP', 'IN_TRANSIT'],
  out_for_delivery: ['OUT_FOR_DELIVERY'],
  failed_attempt: ['FAILED_DELIVERY'],
  exception: ['ON_HOLD'],
  delivered: ['DELIVERED'],
  returned: ['RETURNED'],
  cancelled: ['CANCELLED'],
})

export function uparcelStandardStatus(code: unknown): StandardStatus | null {
  return UPARCEL_STATUSES.meaning(code)?.status ?? null
}
