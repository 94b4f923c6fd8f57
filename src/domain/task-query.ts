import { MUST, type FieldError } from './errors'
import { parseTrackingNumber } from './subscription-input'

/**
 * The query endpoint takes exactly one of taskId and trackingNumber. Query-string values arrive
 * as strings and are never coerced loosely: "1.5", "-1", "0", "1e3" and " 7" are not task ids.
 */
export type TaskLookup = { by: 'taskId'; taskId: number } | { by: 'trackingNumber'; trackingNumber: string } | { by: 'none' }

export type TaskQueryParse = { ok: true; lookup: TaskLookup } | { ok: false; details: FieldError[] }

export function parseTaskQuery(query: { taskId?: unknown; trackingNumber?: unknown }): TaskQueryParse {
  const hasTaskId = query.taskId !== undefined
  const hasTrackingNumber = query.trackingNumber !== undefined
  if (hasTaskId === hasTrackingNumber) {
    return { ok: false, details: [{ field: '', message: 'exactly one of taskId and trackingNumber must be given' }] }
  }
  for (const name of ['taskId', 'trackingNumber'] as const) {
    if (Array.isArray(query[name])) return { ok: false, details: [{ field: name, message: MUST.repeated }] }
  }
  if (hasTaskId) {
    const taskId = parseTaskId(query.taskId)
    if (taskId === undefined) return { ok: false, details: [{ field: 'taskId', message: MUST.positiveInteger }] }
    // A well-formed id beyond any id the database can hold names no task: not found, not invalid.
    return { ok: true, lookup: Number.isSafeInteger(taskId) ? { by: 'taskId', taskId } : { by: 'none' } }
  }
  const tracking = parseTrackingNumber(query.trackingNumber)
  if (!tracking.ok) return { ok: false, details: [{ field: 'trackingNumber', message: tracking.message }] }
  return { ok: true, lookup: { by: 'trackingNumber', trackingNumber: tracking.value } }
}

/**
 * A task id as a URL carries it: digits only, not zero (1.5, -1, 1e3 and " 7" are not ids).
 * A number beyond the safe integers comes back as it parses; callers treat it as no task.
 */
export function parseTaskId(raw: unknown): number | undefined {
  if (typeof raw !== 'string' || !/^[0-9]{1,30}$/.test(raw) || /^0+$/.test(raw)) return undefined
  return Number(raw)
}
