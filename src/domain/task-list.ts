import type { FieldError } from './errors'
import { MILESTONE_NAMES, milestonesOf, type Milestone } from './milestones'
import type { StandardStatus } from './statuses'

/**
 * Listing a user's tasks: filters combined with AND, a sort, and keyset pages (cursors:
 * list-cursor.ts). Walking every page returns each matching task that did not change meanwhile
 * exactly once, in order, whatever is inserted meanwhile.
 */

export const LIST_SORTS = ['-createdAt', 'createdAt', '-updatedAt', 'updatedAt'] as const
export type ListSort = (typeof LIST_SORTS)[number]
export const LIST_LIMIT = { min: 1, max: 100, default: 20 } as const

export interface TaskListFilters {
  standardStatus?: StandardStatus[]
  milestone?: Milestone[]
  carrierCode?: string
  trackingNumber?: string
  externalReferenceNo?: string
  active?: boolean
  createdFrom?: Date
  createdTo?: Date
  updatedFrom?: Date
  updatedTo?: Date
}

import type { ListPosition } from './list-cursor'

export type { ListPosition }

export interface TaskListQuery {
  userId: number
  filters: TaskListFilters
  sort: ListSort
  limit: number
  after: ListPosition | undefined
  includeEvents: boolean
}

/**
 * The milestones the status and milestone filters leave (each milestone belongs to one status),
 * in the milestones' order; undefined when neither filter is given. Empty: nothing can match.
 */
export function listedMilestones(filters: TaskListFilters): Milestone[] | undefined {
  if (!filters.standardStatus && !filters.milestone) return undefined
  const ofStatuses = filters.standardStatus ? milestonesOf(filters.standardStatus) : MILESTONE_NAMES
  return ofStatuses.filter((m) => !filters.milestone || filters.milestone.includes(m))
}

/** Ranges the filters ask for that cannot hold anything. */
export function filterProblems(filters: TaskListFilters): FieldError[] {
  const problems: FieldError[] = []
  for (const [from, to] of [
    ['createdFrom', 'createdTo'],
    ['updatedFrom', 'updatedTo'],
  ] as const) {
    const a = filters[from]
    const b = filters[to]
    if (a && b && a.getTime() >= b.getTime()) problems.push({ field: from, message: `must be before ${to}` })
  }
  return problems
}
