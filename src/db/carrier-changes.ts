import type { CarrierChangeReason } from '../domain/carrier-change'
import type { Queryable } from './database'
import { TASK_FULL, type FullTaskDocument } from './task-lifecycle.repository'
import { statementsOf } from './statements'
import { iso } from './task-document.sql'

/**
 * The statements of a carrier change's transaction (services/carrier-change.service.ts): lock the
 * task, find a task of the user that already tracks the pair, move the task. The moved task starts
 * again as a new one would (pending, no events, no addresses, no prediction), keeps its id, page,
 * callback and deliveries, and is due now; a fetch in flight under the old carrier is not applied
 * (its lease is the schedule's due time, which the move changes).
 */

export interface TaskToMove {
  id: number
  userId: number
  carrierCode: string
  trackingNumber: string
  /** Changes the task already had. */
  changes: number
  /** Pending with no event: nothing the carrier said yet. */
  unknown: boolean
}

/** Locks the user's task (any user's with `userId` null: the auto-correct worker's); undefined when there is none. */
export async function lockTaskToMove(tx: Queryable, userId: number | null, taskId: number): Promise<TaskToMove | undefined> {
  const {
    rows: [row],
  } = await tx.query<{ id: number; user_id: number; carrier_code: string; tracking_number: string; changes: number; unknown: boolean }>(TASK_LOCK_FOR_MOVE, [
    userId,
    taskId,
  ])
  return (
    row && { id: row.id, userId: row.user_id, carrierCode: row.carrier_code, trackingNumber: row.tracking_number, changes: row.changes, unknown: row.unknown }
  )
}

/** The user's task that tracks this number with this carrier, if any. */
export async function taskTracking(tx: Queryable, userId: number, trackingNumber: string, carrierCode: string): Promise<number | undefined> {
  const {
    rows: [row],
  } = await tx.query<{ id: number }>(TASK_OF_PAIR, [userId, trackingNumber, carrierCode])
  return row?.id
}

/** Moves the locked task to `carrierCode` and records the change. */
export async function moveTask(tx: Queryable, task: TaskToMove, carrierCode: string, reason: CarrierChangeReason): Promise<void> {
  await tx.query(TASK_MOVE, [task.id, carrierCode, task.carrierCode, reason])
}

/**
 * The full task as the transaction sees it: after a move, read by a statement of its own (one
 * statement does not see its own writes: the events it deleted, the change it recorded).
 */
export async function fullTaskOf(tx: Queryable, task: { id: number; userId: number }): Promise<FullTaskDocument> {
  const {
    rows: [row],
  } = await tx.query<{ document: FullTaskDocument }>(TASK_FULL, [task.userId, task.id])
  return row!.document
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const TASK_LOCK_FOR_MOVE = sql(
  'task_lock_for_move',
  `SELECT t.id, t.user_id, t.carrier_code, t.tracking_number,
          COALESCE(json_array_length(t.carrier_changes), 0) AS changes,
          t.standard_status = 'pending' AND json_array_length(t.events_view) = 0 AS unknown
     FROM tracking_tasks t
    WHERE t.id = $2 AND ($1::bigint IS NULL OR t.user_id = $1)
      FOR UPDATE OF t`,
)
const TASK_OF_PAIR = sql('task_of_pair', 'SELECT id FROM tracking_tasks WHERE user_id = $1 AND tracking_number = $2 AND carrier_code = $3')
const TASK_MOVE = sql(
  'task_move',
  `WITH moved AS (
     UPDATE tracking_tasks t
        SET carrier_code = $2,
            standard_status = 'pending',
            milestone = 'pending',
            carrier_status = '',
            estimated_delivery_at = NULL,
            origin_address = DEFAULT,
            destination_address = DEFAULT,
            events_view = '[]',
            -- The expiry's clock starts again, as for a new task.
            last_new_event_at = now(),
            stopped_at = NULL,
            inactive_since = NULL,
            answer_fingerprint = NULL,
            proof_of_delivery = NULL,
            transit_started_at = NULL,
            first_estimated_delivery_at = NULL,
            passed_exception = false,
            transit_counted = false,
            predicted_delivery_at = NULL,
            prediction = NULL,
            -- The change appended to the list as the full task writes it (compact, members in order).
            carrier_changes = (CASE WHEN t.carrier_changes IS NULL THEN '[' || c.change || ']'
                                    ELSE left(t.carrier_changes::text, -1) || ',' || c.change || ']' END)::json,
            updated_at = now()
       FROM (SELECT row_to_json(x)::text AS change
               FROM (SELECT $3::text AS "previousCarrierCode", $2::text AS "carrierCode", $4::text AS reason, ${iso('now()')} AS "changedAt") x) c
      WHERE t.id = $1
      RETURNING t.id
   ),
   forgotten AS (
     DELETE FROM tracking_events e USING moved WHERE e.task_id = moved.id
   )
   -- After the task's row (locked by the caller), as a refresh locks them.
   UPDATE task_schedule s
      SET carrier_code = $2, next_refresh_at = now(), refresh_failures = 0, due_since = NULL
     FROM moved
    WHERE s.task_id = moved.id`,
)
