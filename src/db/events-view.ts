import { createHash } from 'node:crypto'
import { EVENT_FIELDS, FULL_EVENT_FIELDS } from '../domain/task-document'
import type { Queryable } from './database'
import { statementsOf } from './statements'

/**
 * tracking_tasks.events_view: a task's events exactly as the query answer writes them (its
 * members, order and formatting come from EVENT_FIELDS in domain/task-document.ts), kept on the task
 * row so that a query reads them as text. tracking_events stays the record; the refresh rewrites
 * the view whenever a task gains events, with the expression below.
 *
 * The expression is generated from EVENT_FIELDS, so the view follows a change of the event's
 * shape by itself: `syncEventsView` (run by every migrate) rebuilds every task's view when the
 * expression differs from the one that built them.
 */

/** A member's column: its name in snake case. */
const columnOf = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

type MemberKind = 'datetime' | 'text' | 'localTime' | 'offset'

/**
 * An event document's member as SQL: datetimes written as JavaScript's toISOString does; the local
 * time as the event's time at the carrier's offset with that offset (localTimeOf in
 * domain/tracking-update.ts writes the same), null without one.
 */
function memberOf(field: string, kind: MemberKind): string {
  switch (kind) {
    case 'datetime':
      return `to_char(e.${columnOf(field)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    case 'text':
      return `e.${columnOf(field)}`
    case 'offset':
      return 'e.utc_offset'
    case 'localTime':
      return `to_char(e.event_time AT TIME ZONE e.utc_offset::interval, 'YYYY-MM-DD"T"HH24:MI:SS') || e.utc_offset`
  }
}

function membersOf(fields: Record<string, MemberKind>): string {
  return Object.entries(fields)
    .map(([field, kind]) => `${memberOf(field, kind)} AS "${field}"`)
    .join(',\n           ')
}

/**
 * The events of the task `taskId` (an SQL expression) as a JSON array in eventTime order, written
 * compactly (row_to_json, joined with commas) as JSON.stringify writes it.
 */
const eventsJsonOf = (fields: Record<string, MemberKind>, taskId: string) => `
  COALESCE((
    SELECT ('[' || string_agg(row_to_json(v)::text, ',' ORDER BY e.event_time, e.id) || ']')::json
      FROM tracking_events e
     CROSS JOIN LATERAL (SELECT ${membersOf(fields)}) v
     WHERE e.task_id = ${taskId}
  ), '[]'::json)`

/** The events as the query answer writes them: what events_view keeps. */
export const eventsViewOf = (taskId: string) => eventsJsonOf(EVENT_FIELDS, taskId)

/** The events as the full task writes them, read when asked for (not kept). */
export const fullEventsOf = (taskId: string) => eventsJsonOf(FULL_EVENT_FIELDS, taskId)

const FINGERPRINT = createHash('sha256').update(eventsViewOf('$task')).digest('hex').slice(0, 16)
const REBUILD_BATCH = 10_000

/**
 * Rebuilds every task's events view when the expression changed since they were built (a new
 * event member, another format), in batches of tasks; records the expression's fingerprint.
 * Runs under the migration lock.
 */
export async function syncEventsView(client: Queryable, log: (message: string) => void = () => {}): Promise<void> {
  await client.query(DERIVED_DEFINITIONS_CREATE)
  const { rows } = await client.query<{ fingerprint: string }>(EVENTS_VIEW_FINGERPRINT)
  if (rows[0]?.fingerprint === FINGERPRINT) return
  const { rows: range } = await client.query<{ max: number | null }>(EVENTS_VIEW_LAST_TASK)
  const max = range[0]?.max ?? 0
  if (max > 0) log(`rebuilding the events kept on each task (their shape changed), up to task ${max}`)
  for (let from = 0; from < max; from += REBUILD_BATCH) {
    await client.query(EVENTS_VIEW_REBUILD, [from, from + REBUILD_BATCH])
  }
  await client.query(EVENTS_VIEW_FINGERPRINT_SAVE, [FINGERPRINT])
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const DERIVED_DEFINITIONS_CREATE = sql(
  'derived_definitions_create',
  `CREATE TABLE IF NOT EXISTS derived_definitions (name text PRIMARY KEY, fingerprint text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
)
const EVENTS_VIEW_FINGERPRINT = sql('events_view_fingerprint', `SELECT fingerprint FROM derived_definitions WHERE name = 'events_view'`)
const EVENTS_VIEW_LAST_TASK = sql('events_view_last_task', 'SELECT max(task_id) AS max FROM tracking_events')
const EVENTS_VIEW_REBUILD = sql(
  'events_view_rebuild',
  `UPDATE tracking_tasks t SET events_view = ${eventsViewOf('t.id')}
    WHERE t.id > $1 AND t.id <= $2 AND EXISTS (SELECT 1 FROM tracking_events e WHERE e.task_id = t.id)`,
)
const EVENTS_VIEW_FINGERPRINT_SAVE = sql(
  'events_view_fingerprint_save',
  `INSERT INTO derived_definitions (name, fingerprint) VALUES ('events_view', $1)
   ON CONFLICT (name) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, updated_at = now()`,
)
