import type { EndpointData } from '../domain/task-events'
import type { JsonText } from '../domain/task-document'
import type { Queryable } from './database'
import { taskDocumentOf } from './task-document.sql'
import { statementsOf } from './statements'

/**
 * The statements of a task delete's transaction (services/task-deletion.ts): lock the tasks, read
 * what their deletion tells, delete them. Their events, deliveries and attempts go with them
 * (migration 0009's triggers); the deliveries the deletion makes are written after the delete
 * (outbox-writes.ts), so that the trigger leaves them.
 */

export interface DoomedTask {
  id: number
  userId: number
}

/** Locks the user's task; undefined when the user has no such task. */
export async function lockUserTask(tx: Queryable, userId: number, taskId: number): Promise<DoomedTask | undefined> {
  const { rows } = await tx.query<{ id: number; user_id: number }>(TASK_LOCK_FOR_DELETE, [userId, taskId])
  return rows[0] && { id: rows[0].id, userId: rows[0].user_id }
}

/**
 * Locks up to `limit` of the tasks inactive for more than `days`, longest inactive first (rows
 * another transaction holds are skipped, not waited for): retention's batch.
 */
export async function lockLongInactive(tx: Queryable, days: number, limit: number): Promise<DoomedTask[]> {
  const { rows } = await tx.query<{ id: number; user_id: number }>(RETENTION_LOCK_INACTIVE, [days, limit])
  return rows.map((r) => ({ id: r.id, userId: r.user_id }))
}

/** The full task as a deletion tells it (with its events, without latestWebhook), of each of these tasks. */
export async function documentsOf(tx: Queryable, taskIds: number[]): Promise<Map<number, JsonText<EndpointData>>> {
  if (taskIds.length === 0) return new Map()
  const { rows } = await tx.query<{ id: number; document: JsonText<EndpointData> }>(TASK_DOCUMENTS_FOR_DELETE, [taskIds])
  return new Map(rows.map((r) => [r.id, r.document]))
}

export async function deleteTasks(tx: Queryable, taskIds: number[]): Promise<void> {
  await tx.query(TASK_DELETE, [taskIds])
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const TASK_LOCK_FOR_DELETE = sql('task_lock_for_delete', 'SELECT id, user_id FROM tracking_tasks WHERE user_id = $1 AND id = $2 FOR UPDATE')
const RETENTION_LOCK_INACTIVE = sql(
  'retention_lock_inactive',
  `SELECT id, user_id FROM tracking_tasks
    WHERE inactive_since < now() - make_interval(days => $1)
    ORDER BY inactive_since
    LIMIT $2
    FOR UPDATE SKIP LOCKED`,
)
const TASK_DOCUMENTS_FOR_DELETE = sql(
  'task_documents_for_delete',
  `SELECT t.id, ${taskDocumentOf('full', { latestWebhook: false })} AS document FROM tracking_tasks t WHERE t.id = ANY($1::bigint[])`,
)
const TASK_DELETE = sql('task_delete', 'DELETE FROM tracking_tasks WHERE id = ANY($1::bigint[])')
