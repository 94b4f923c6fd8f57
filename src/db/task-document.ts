import { FULL_TASK_FIELDS, LATEST_WEBHOOK_FIELDS, type FullTaskField } from '../domain/task-json'
import { fullEventsOf } from './events-view'

/**
 * The full task as the database writes it: one JSON text per task, with the members, order and
 * formats of FULL_TASK_FIELDS (domain/task-json.ts), written compactly as JSON.stringify writes
 * (row_to_json). Every full task the service answers or sends is this text.
 */

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** Where a member comes from, when not from the column of its name in snake case. */
const SOURCES: Partial<Record<FullTaskField, string>> = {
  taskId: 't.id',
  active: 't.next_refresh_at IS NOT NULL',
  lastCheckedAt: 't.last_fetched_at',
  nextCheckAt: 't.next_refresh_at',
}

const column = (field: string) => `t.${field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`


// The task's newest delivery of its own (not an endpoint's), as latestWebhook shows it.
const LATEST = `(
  SELECT row_to_json(w) FROM (
    SELECT ${LATEST_WEBHOOK_FIELDS.map(
      (f) =>
        ({
          status: 'd.status',
          attemptCount: 'd.attempt_count',
          nextRetryAt: `CASE WHEN d.status = 'retry_wait' THEN ${ISO('d.next_attempt_at')} END`,
          lastAttemptAt: ISO('d.last_attempt_at'),
          responseStatusCode: 'd.response_status_code',
          errorMessage: 'd.error_message',
        })[f] + ` AS "${f}"`,
    ).join(', ')}
      FROM webhook_deliveries d
     WHERE d.task_id = t.id AND d.endpoint_id IS NULL
     ORDER BY d.id DESC
     LIMIT 1) w)`

function member(field: FullTaskField): string {
  const source = SOURCES[field] ?? column(field)
  switch (FULL_TASK_FIELDS[field]) {
    case 'datetime':
      return ISO(source)
    case 'address':
      // Stored as the text the document writes (migration 0014, refresh-writes.ts): as it is.
      return source
    case 'events':
      return fullEventsOf('t.id')
    case 'latestWebhook':
      return LATEST
    case 'integer':
    case 'text':
    case 'boolean':
      return source
  }
}

/**
 * The full task of the row `t` (of tracking_tasks, or a CTE of its columns) as JSON text, with or
 * without its events.
 */
// Each kind of document's text, written once: a list page built it anew on every call.
const DOCUMENTS = new Map<string, string>()

export function fullTaskDocumentOf(options: { events: boolean; latestWebhook?: boolean }): string {
  const key = `${options.events} ${options.latestWebhook !== false}`
  let text = DOCUMENTS.get(key)
  if (text === undefined) DOCUMENTS.set(key, (text = documentOf(options)))
  return text
}

function documentOf(options: { events: boolean; latestWebhook?: boolean }): string {
  const fields = (Object.keys(FULL_TASK_FIELDS) as FullTaskField[]).filter((f) => (f !== 'events' || options.events) && (f !== 'latestWebhook' || options.latestWebhook !== false))
  return `(SELECT row_to_json(doc)::text FROM (SELECT ${fields.map((f) => `${member(f)} AS "${f}"`).join(', ')}) doc)`
}
