import type { Milestone } from '../../domain/milestones'
import { MILESTONES } from '../../domain/milestones'
import type { CodeMeaning } from '../status-table'

/**
 * 17TRACK's statuses (test/fixtures/carriers/17track/status-codes.json, which says where each
 * mapping comes from and which are judgement calls). The current status comes from
 * `latest_status.sub_status`, else its main status; never from the newest event, whose `stage` can
 * disagree (a parcel left at a pick-up point for 28 days is judged Exception_Other with the same
 * single event). null: the entry moves no status (NotFound: the task keeps what it has).
 */
const SUB_STATUSES: Readonly<Record<string, Milestone | null>> = {
  NotFound_Other: null,
  NotFound_InvalidCode: null,
  InfoReceived: 'info_received',
  InTransit_PickedUp: 'in_transit',
  InTransit_Other: 'in_transit',
  InTransit_Departure: 'in_transit',
  InTransit_Arrival: 'in_transit',
  InTransit_CustomsProcessing: 'in_transit',
  InTransit_CustomsReleased: 'in_transit',
  InTransit_CustomsRequiringInformation: 'exception',
  Expired_Other: 'expired',
  AvailableForPickup_Other: 'available_for_pickup',
  OutForDelivery_Other: 'out_for_delivery',
  DeliveryFailure_Other: 'failed_attempt',
  DeliveryFailure_NoBody: 'failed_attempt',
  DeliveryFailure_Security: 'failed_attempt',
  DeliveryFailure_Rejected: 'failed_attempt',
  DeliveryFailure_InvalidAddress: 'failed_attempt',
  Delivered_Other: 'delivered',
  Exception_Other: 'exception',
  Exception_Returning: 'returned',
  Exception_Returned: 'returned',
  Exception_NoBody: 'exception',
  Exception_Security: 'exception',
  Exception_Damage: 'exception',
  // Seen spelt both ways.
  Exception_Damaged: 'exception',
  Exception_Rejected: 'exception',
  Exception_Delayed: 'in_transit',
  Exception_Lost: 'exception',
  Exception_Destroyed: 'exception',
  Exception_Cancel: 'cancelled',
}

/** The main statuses: the fall-back for a sub-status this table does not know (a future one). */
const MAIN_STATUSES: Readonly<Record<string, Milestone | null>> = {
  NotFound: null,
  InfoReceived: 'info_received',
  InTransit: 'in_transit',
  Expired: 'expired',
  AvailableForPickup: 'available_for_pickup',
  OutForDelivery: 'out_for_delivery',
  DeliveryFailure: 'failed_attempt',
  Delivered: 'delivered',
  Exception: 'exception',
}

/** An event's `stage` (the milestone vocabulary, null on most events). */
const KEY_STAGES: Readonly<Record<string, Milestone>> = {
  InfoReceived: 'info_received',
  PickedUp: 'in_transit',
  Departure: 'in_transit',
  Arrival: 'in_transit',
  AvailableForPickup: 'available_for_pickup',
  OutForDelivery: 'out_for_delivery',
  Delivered: 'delivered',
  Returning: 'returned',
  Returned: 'returned',
}

export const SEVENTEENTRACK_SUB_STATUSES = Object.keys(SUB_STATUSES)
export const SEVENTEENTRACK_MAIN_STATUSES = Object.keys(MAIN_STATUSES)
export const SEVENTEENTRACK_KEY_STAGES = Object.keys(KEY_STAGES)

const meaningOf = (milestone: Milestone | null | undefined): CodeMeaning | null => (milestone ? { status: MILESTONES[milestone], milestone } : null)

/** The current status of `latest_status`: its sub-status, else its main status; null moves nothing. */
export function latestStatusMeaning(status: string, subStatus: string): CodeMeaning | null {
  if (subStatus in SUB_STATUSES) return meaningOf(SUB_STATUSES[subStatus])
  return status in MAIN_STATUSES ? meaningOf(MAIN_STATUSES[status]) : null
}

/** An event's own meaning: its `sub_status`, else its `stage`; null for most events (neither). */
export function eventMeaning(subStatus: string, stage: string): CodeMeaning | null {
  if (subStatus && SUB_STATUSES[subStatus]) return meaningOf(SUB_STATUSES[subStatus])
  return meaningOf(KEY_STAGES[stage])
}
