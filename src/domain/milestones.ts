import type { StandardStatus } from './statuses'

/**
 * Milestones: a finer status, each belonging to exactly one standard status, so that a milestone
 * never contradicts its task's standardStatus. Carriers' tables give each code its milestone
 * (docs/carriers.md); a standard status alone gives its plain milestone.
 */
export const MILESTONES = {
  pending: 'pending',
  info_received: 'pending',
  in_transit: 'in_transit',
  out_for_delivery: 'in_transit',
  available_for_pickup: 'in_transit',
  failed_attempt: 'exception',
  exception: 'exception',
  delivered: 'delivered',
  returned: 'returned',
  cancelled: 'cancelled',
  expired: 'expired',
} as const satisfies Record<string, StandardStatus>

export type Milestone = keyof typeof MILESTONES
export const MILESTONE_NAMES = Object.keys(MILESTONES) as Milestone[]

/** The plain milestone of a standard status (each status has one of its own name). */
export function plainMilestone(status: StandardStatus): Milestone {
  return status
}

/** The milestones of some standard statuses: what a filter on standardStatus means in milestones. */
export function milestonesOf(statuses: readonly StandardStatus[]): Milestone[] {
  return MILESTONE_NAMES.filter((m) => statuses.includes(MILESTONES[m]))
}
