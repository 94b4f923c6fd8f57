import { normalizeCarrierCode, unsupportedCarrierMessage } from './carriers'
import type { FieldError } from './errors'
import { externalReferenceProblem, parseTrackingNumber } from './subscription-input'
import { MILESTONE_NAMES, milestonesOf, type Milestone } from './milestones'
import type { StandardStatus } from './statuses'
import type { FullTaskMember } from './task-document'

/**
 * Listing a user's tasks: filters combined with AND, a sort, and keyset pages (cursors:
 * list-cursor.ts). Walking every page returns each matching task that did not change meanwhile
 * exactly once, in order, whatever is inserted meanwhile.
 */

export const LIST_SORTS = ['-createdAt', 'createdAt', '-updatedAt', 'updatedAt'] as const
export type ListSort = (typeof LIST_SORTS)[number]
export const LIST_LIMIT = { min: 1, max: 100, default: 20 } as const
/** The pages the service reads for itself (an export's): larger than a caller's, fewer statements. */
export const INTERNAL_PAGE_MAX = 1000

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
  /** The members each document holds; every member of the full task when absent (an export writes only its columns'). */
  members?: readonly FullTaskMember[]
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

/** The filters as the list's query schema checked them: their types, lengths and closed lists; times as the date-times given. */
export type ListFilterParameters = { [K in keyof TaskListFilters]: TaskListFilters[K] extends Date | undefined ? string : TaskListFilters[K] }

/**
 * What a schema cannot say of the filters: a carrier code any case, one of the registry's; a
 * tracking number trimmed, by the subscribe's rules; a reference without control characters (a
 * value that breaks what can be stored matches nothing, and says so); ranges that can hold
 * something.
 */
export function judgeListFilters(
  p: ListFilterParameters,
  carrierCodes: readonly string[],
): { ok: true; filters: TaskListFilters } | { ok: false; details: FieldError[] } {
  const problems: FieldError[] = []
  const date = (value: string | undefined) => (value === undefined ? undefined : new Date(value))
  const filters: TaskListFilters = {
    standardStatus: p.standardStatus,
    milestone: p.milestone,
    externalReferenceNo: p.externalReferenceNo,
    active: p.active,
    createdFrom: date(p.createdFrom),
    createdTo: date(p.createdTo),
    updatedFrom: date(p.updatedFrom),
    updatedTo: date(p.updatedTo),
  }
  if (p.carrierCode !== undefined) {
    const code = normalizeCarrierCode(p.carrierCode)
    if (carrierCodes.includes(code)) filters.carrierCode = code
    else problems.push({ field: 'carrierCode', message: unsupportedCarrierMessage(carrierCodes) })
  }
  const referenceProblem = p.externalReferenceNo === undefined ? undefined : externalReferenceProblem(p.externalReferenceNo)
  if (referenceProblem) problems.push({ field: 'externalReferenceNo', message: referenceProblem })
  if (p.trackingNumber !== undefined) {
    const number = parseTrackingNumber(p.trackingNumber)
    if (number.ok) filters.trackingNumber = number.value
    else problems.push({ field: 'trackingNumber', message: number.message })
  }
  problems.push(...filterProblems(filters))
  return problems.length > 0 ? { ok: false, details: problems } : { ok: true, filters }
}
