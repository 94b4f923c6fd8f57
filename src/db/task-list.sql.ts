import { INTERNAL_PAGE_MAX, LIST_LIMIT, listedMilestones, type ListSort, type TaskListFilters, type TaskListQuery } from '../domain/task-list'
import { statementsOf } from './statements'
import { taskDocumentOf } from './task-document.sql'

/**
 * The list's statements, kept apart from the repository that runs them so that their plan tests
 * can EXPLAIN them.
 */

/** A range of at most this many tasks is read and sorted rather than walked (a few ms of sorting). */
export const NARROW_RANGE = 20_000

// The sort keys, and the order of each sort (the indexes tracking_tasks_user_{active,inactive}_{created,updated}_idx
// read forwards or backwards).
const SORTS = {
  '-createdAt': { column: 'created_at', direction: 'DESC', after: '<' },
  createdAt: { column: 'created_at', direction: 'ASC', after: '>' },
  '-updatedAt': { column: 'updated_at', direction: 'DESC', after: '<' },
  updatedAt: { column: 'updated_at', direction: 'ASC', after: '>' },
} as const

/** A user's tasks as their indexes by time divide them (migration 0018): the active, the inactive. */
const ACTIVITIES = ['t.inactive_since IS NULL', 't.inactive_since IS NOT NULL']

/**
 * A parameter as a value the planner cannot see. A custom plan, made for the values given,
 * estimated a range (or a reference) better than the generic plan's default selectivity, so
 * PostgreSQL judged every custom plan cheaper and planned the statement anew on each call (half a
 * millisecond of the database's time a page, more than reading the page). Hidden, every plan
 * estimates alike and one generic plan is kept; the plan does not depend on the value anyway
 * (the index is the filter's; a range's width is counted by listStatement's callers).
 */
const hidden = (param: string, type: 'timestamptz' | 'text') => `(SELECT ${param}::${type})`
const time = (param: string) => hidden(param, 'timestamptz')

/**
 * One page of a user's tasks, and one more row to tell whether there is a next page. Each filter
 * is a condition on the row; the page is read along an index in the sort's order from the
 * cursor's position (keyset), so a page costs the same wherever it is. Each row is the task's
 * document as the database writes it (task-document.sql.ts).
 *
 * Status and milestone filters become the milestones they leave (listedMilestones; a task's
 * milestone always belongs to its status, domain/milestones.ts): one is read through the user's
 * milestone index in the page's order; several are each read so, up to a page, and merged. A
 * carrier is read through the user's carrier index. Walking the sort's index and skipping what
 * does not match read every task of the user when nothing matched. A page with none of these
 * filters and none on activity reads the active and the inactive tasks each through their own
 * index, merged: there is no index of all the user's tasks by time (each would cost every write).
 */
export function listStatement(query: TaskListQuery, readRange = false): { text: string; values: unknown[] } {
  const sort = SORTS[query.sort]
  const values: unknown[] = [query.userId]
  const param = (value: unknown) => `$${values.push(value)}`
  const where = ['t.user_id = $1']
  const { filters } = query
  if (filters.carrierCode) where.push(`t.carrier_code = ${param(filters.carrierCode)}`)
  if (filters.trackingNumber) where.push(`t.tracking_number = ${param(filters.trackingNumber)}`)
  if (filters.externalReferenceNo === '') where.push(`t.external_reference_no = ''`)
  // Said twice so that a generic plan may read the reference index (partial: a plan for any value
  // cannot use it), and hidden: a custom plan saw that the value was not the common empty one and
  // looked cheaper than the generic plan whenever the statistics guessed too few references.
  else if (filters.externalReferenceNo !== undefined)
    where.push(`t.external_reference_no = ${hidden(param(filters.externalReferenceNo), 'text')} AND t.external_reference_no <> ''`)
  if (filters.active !== undefined) where.push(`t.inactive_since IS ${filters.active ? '' : 'NOT '}NULL`)
  const at = (value: Date) => time(param(value))
  // A range of the other time that is walked (wider than NARROW_RANGE: its count said so) is a
  // condition no index can serve: with the range's values hidden, PostgreSQL 15 judged any range
  // narrow and read it through its own index and sorted it, the very plan the count ruled out.
  const other = readRange ? undefined : otherTimeRange(query)?.column
  const timeOf = (column: 'created_at' | 'updated_at') => (column === other ? `(t.${column} + interval '0')` : `t.${column}`)
  if (filters.createdFrom) where.push(`${timeOf('created_at')} >= ${at(filters.createdFrom)}`)
  if (filters.createdTo) where.push(`${timeOf('created_at')} < ${at(filters.createdTo)}`)
  if (filters.updatedFrom) where.push(`${timeOf('updated_at')} >= ${at(filters.updatedFrom)}`)
  if (filters.updatedTo) where.push(`${timeOf('updated_at')} < ${at(filters.updatedTo)}`)
  if (query.after) where.push(`(t.${sort.column}, t.id) ${sort.after} (${param(query.after.key)}::timestamptz, ${param(query.after.id)}::bigint)`)
  const milestones = listedMilestones(filters)
  const byActivity = !milestones && !filters.carrierCode && !filters.trackingNumber && filters.externalReferenceNo === undefined && filters.active === undefined
  const order = `ORDER BY t.${sort.column} ${sort.direction}, t.id ${sort.direction}`
  const document = taskDocumentOf('full', { events: query.includeEvents, ...(query.members ? { only: query.members } : {}) })
  const select = `SELECT ${document} AS document, t.id, t.${sort.column}::text AS sort_key`
  // The page size is written into the text, not passed: with a LIMIT parameter PostgreSQL found
  // its generic plan dearer than a custom one and planned the statement on every call (140 µs of
  // a page's 320 on the database's side). With a literal one it keeps one plan per connection.
  const limit = pageLimit(query.limit)
  // The page's ids first, then only the page's tasks are written as documents.
  const pageOf = (ids: string) => ({ text: `${select} FROM (${ids}) page JOIN tracking_tasks t ON t.id = page.id ${order}`, values })
  if (readRange) {
    // The range read through its own index and sorted (an expression no index serves).
    if (milestones) where.push(`t.milestone = ANY(${param(milestones)}::text[])`)
    const from = byActivity
      ? `(${ACTIVITIES.map((a) => `SELECT t.id, t.${sort.column} FROM tracking_tasks t WHERE ${[...where, a].join(' AND ')}`).join(' UNION ALL ')}) t`
      : `tracking_tasks t WHERE ${where.join(' AND ')}`
    return pageOf(`SELECT t.id FROM ${from} ORDER BY t.${sort.column} + interval '0' ${sort.direction}, t.id ${sort.direction} LIMIT ${limit}`)
  }
  // Each part read up to a page in the page's order through its own index, and merged.
  const parts = milestones && milestones.length > 1 ? milestones.map((m) => `t.milestone = ${param(m)}`) : byActivity ? ACTIVITIES : undefined
  if (parts && !other) {
    // Each part writes the documents of the rows the merge takes from it (a page and one more):
    // no join back to the table for the page's rows.
    const each = parts.map((part) => `(${select}, t.${sort.column} FROM tracking_tasks t WHERE ${[...where, part].join(' AND ')} ${order} LIMIT ${limit})`)
    return { text: `SELECT t.document, t.id, t.sort_key FROM (${each.join(' UNION ALL ')}) t ${order} LIMIT ${limit}`, values }
  }
  if (parts) {
    const each = parts.map((part) => `(SELECT t.id, t.${sort.column} FROM tracking_tasks t WHERE ${[...where, part].join(' AND ')} ${order} LIMIT ${limit})`)
    return pageOf(`SELECT t.id FROM (${each.join(' UNION ALL ')}) t ${order} LIMIT ${limit}`)
  }
  if (milestones) where.push(milestones.length === 0 ? 'false' : `t.milestone = ${param(milestones[0])}`)
  // A wide range of the other time is walked along the sort's index, which carries that time: ids
  // first, so that the walk reads the index alone. Filtered on the table, a range whose tasks lie
  // far along the sort read a heap row for every task passed (1,000,000 tasks: 266 against 70 ms).
  // (Without an activity filter the parts above do the same, each in its own index.)
  if (!milestones && other) return pageOf(`SELECT t.id FROM tracking_tasks t WHERE ${where.join(' AND ')} ${order} LIMIT ${limit}`)
  return { text: `${select} FROM tracking_tasks t WHERE ${where.join(' AND ')} ${order} LIMIT ${limit}`, values }
}

/** The time the page is not sorted by, and the range the filters give it (either end may be open). */
function otherTimeRange({ sort, filters }: TaskListQuery): { column: 'updated_at' | 'created_at'; from?: Date; to?: Date } | undefined {
  const range =
    SORTS[sort].column === 'created_at'
      ? { column: 'updated_at' as const, from: filters.updatedFrom, to: filters.updatedTo }
      : { column: 'created_at' as const, from: filters.createdFrom, to: filters.createdTo }
  return range.from || range.to ? range : undefined
}

/**
 * How many of the user's tasks a time range on the column the page is not sorted by holds, up to
 * one more than NARROW_RANGE (through that column's index alone); undefined without such a range.
 */
export function rangeCountStatement(query: TaskListQuery): { text: string; values: unknown[]; name: string } | undefined {
  const range = otherTimeRange(query)
  if (!range) return undefined
  const { column, from, to } = range
  const inRange = `user_id = $1 AND ${column} >= COALESCE(${time('$2')}, '-infinity') AND ${column} < COALESCE(${time('$3')}, 'infinity')`
  return {
    text: `SELECT count(*)::int AS n FROM (
             ${ACTIVITIES.map((a) => `SELECT 1 FROM tracking_tasks t WHERE ${inRange} AND ${a}`).join(`
             UNION ALL
             `)}
             LIMIT ${NARROW_RANGE + 1}
           ) x`,
    values: [query.userId, from ?? null, to ?? null],
    name: `task_list_range_${column}`,
  }
}

/** The rows a page reads: its size and one more, as SQL text (a checked integer, never a value from outside). */
function pageLimit(size: number): string {
  if (!Number.isInteger(size) || size < LIST_LIMIT.min || size > INTERNAL_PAGE_MAX) throw new Error(`page size out of range: ${size}`)
  return String(size + 1)
}

// The list's statements for review (src/db/queries/task_list.sql, task_list_range.sql): the text of
// each kind of page. A page's text depends on its filters, sort and size.
const sql = statementsOf(import.meta.url)
const page = (filters: TaskListFilters, sort: ListSort = '-createdAt', more: Partial<TaskListQuery> = {}): TaskListQuery => ({
  userId: 1,
  filters,
  sort,
  limit: LIST_LIMIT.default,
  after: undefined,
  includeEvents: false,
  ...more,
})
const DAY = new Date('2026-11-20T00:00:00Z')
const NEXT_DAY = new Date('2026-11-21T00:00:00Z')
sql.family('task_list', () => {
  const pages: [string, TaskListQuery, boolean][] = [
    ['the default page: newest created first', page({}), false],
    [
      'the next page, by change, oldest first, with the events',
      page({}, 'updatedAt', { after: { key: '2026-11-20 00:00:00+00', id: 1 }, includeEvents: true }),
      false,
    ],
    ['one milestone', page({ milestone: ['out_for_delivery'] }), false],
    ['a standard status (its milestones, merged)', page({ standardStatus: ['in_transit'] }), false],
    ['a carrier', page({ carrierCode: 'x' }), false],
    ['a tracking number', page({ trackingNumber: 'x' }), false],
    ['a reference', page({ externalReferenceNo: 'x' }), false],
    ['no reference', page({ externalReferenceNo: '' }), false],
    ['active tasks', page({ active: true }), false],
    ['inactive tasks', page({ active: false }), false],
    ['a range of the sorted time', page({ createdFrom: DAY, createdTo: NEXT_DAY }), false],
    ['a wide range of the other time, walked along the sort', page({ updatedFrom: DAY, updatedTo: NEXT_DAY }), false],
    ['a narrow range of the other time, read and sorted', page({ updatedFrom: DAY, updatedTo: NEXT_DAY }), true],
  ]
  return pages.map(([label, query, readRange]) => ({ label, text: listStatement(query, readRange).text }))
})
sql.family('task_list_range', () => [
  { label: 'the tasks a range of the change time holds (pages sorted by creation)', text: rangeCountStatement(page({ updatedFrom: DAY }))!.text },
  { label: 'the tasks a range of the creation time holds (pages sorted by change)', text: rangeCountStatement(page({ createdFrom: DAY }, '-updatedAt'))!.text },
])
