import { CARRIER_CHANGE_LIMIT, type CorrectionOutcome, type CorrectionTry } from '../domain/carrier-change'
import type { Queryable } from './database'
import { statementsOf } from './statements'
import { iso } from './task-document.sql'

/**
 * Auto-correct's claims (services/carrier-correction.service.ts). A task qualifies when its user
 * has auto-correct on (its own choice, else the back-office default), it is active, pending and
 * eventless, its carrier's last answer was "not found" (its answer fingerprint is that answer's),
 * it has been so for the user's hours since it was made or last moved, it has had fewer than 5
 * changes, and it was never tried. A claim is a row of carrier_corrections under a lease: another
 * worker skips it, and a crashed worker's claim is taken again when the lease lapses.
 */

export interface ClaimedCorrection {
  taskId: number
  userId: number
  carrierCode: string
  trackingNumber: string
}

/** Claims up to `limit` tasks to try, oldest first; `notFound`: the answer fingerprint of "not found". */
export async function claimCorrections(tx: Queryable, notFound: string, limit: number, leaseMs: number): Promise<ClaimedCorrection[]> {
  const { rows } = await tx.query<{ task_id: number; user_id: number; carrier_code: string; tracking_number: string }>(CORRECTION_CLAIM, [
    notFound,
    limit,
    leaseMs,
  ])
  return rows.map((r) => ({ taskId: r.task_id, userId: r.user_id, carrierCode: r.carrier_code, trackingNumber: r.tracking_number }))
}

/** Ends a task's correction with what it tried. */
export async function finishCorrection(tx: Queryable, taskId: number, outcome: CorrectionOutcome, tried: readonly CorrectionTry[]): Promise<void> {
  await tx.query(CORRECTION_FINISH, [taskId, outcome, JSON.stringify(tried)])
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const CORRECTION_CLAIM = sql(
  'correction_claim',
  // Through the users who have it on, then each one's pending tasks by creation time
  // (tracking_tasks_user_milestone_created_idx): the tasks of users without it are never read.
  // The tasks tried already stay pending: they are read again, each round, until they expire.
  `WITH due AS (
     SELECT t.id
       FROM settings st
       JOIN api_users u ON COALESCE(u.carrier_auto_correct, st.carrier_auto_correct = 'on')
       CROSS JOIN LATERAL (SELECT now() - make_interval(secs => 3600 * COALESCE(u.carrier_auto_correct_hours, st.carrier_auto_correct_hours)) AS cutoff) c
       -- Per user (LATERAL): each user's pending tasks through (user_id, milestone, created_at).
       CROSS JOIN LATERAL (
         SELECT t.id, t.created_at
           FROM tracking_tasks t
          WHERE t.user_id = u.id
            AND t.milestone = 'pending'
            AND t.created_at <= c.cutoff
            AND t.inactive_since IS NULL
            AND t.answer_fingerprint = $1
            AND json_array_length(t.events_view) = 0
            -- Its hours count from its last change too, and its changes are not spent.
            AND (t.carrier_changes IS NULL
                 OR (json_array_length(t.carrier_changes) < ${CARRIER_CHANGE_LIMIT}
                     AND (t.carrier_changes -> -1 ->> 'changedAt')::timestamptz <= c.cutoff))
            AND NOT EXISTS (SELECT 1 FROM carrier_corrections cc WHERE cc.task_id = t.id AND (cc.finished_at IS NOT NULL OR cc.leased_until > now()))
          ORDER BY t.created_at
          LIMIT $2
       ) t
      WHERE st.id
      ORDER BY t.created_at
      LIMIT $2
   ),
   claimed AS (
     INSERT INTO carrier_corrections AS cc (task_id, leased_until)
     SELECT id, now() + make_interval(secs => $3 / 1000.0) FROM due
     ON CONFLICT (task_id) DO UPDATE
        SET leased_until = EXCLUDED.leased_until
      WHERE cc.finished_at IS NULL AND cc.leased_until <= now()
     RETURNING cc.task_id
   )
   -- The full task shows the correction from now on, as the documents write it.
   UPDATE tracking_tasks t
      SET carrier_correction = (SELECT row_to_json(x) FROM (SELECT ${iso('now()')} AS "startedAt", NULL AS "finishedAt", NULL AS outcome, '[]'::json AS tried) x)
     FROM claimed
    WHERE t.id = claimed.task_id
   RETURNING t.id AS task_id, t.user_id, t.carrier_code, t.tracking_number`,
)
const CORRECTION_FINISH = sql(
  'correction_finish',
  `WITH finished AS (
     UPDATE carrier_corrections SET finished_at = now() WHERE task_id = $1
   )
   UPDATE tracking_tasks t
      SET carrier_correction = (SELECT row_to_json(x)
                                  FROM (SELECT t.carrier_correction -> 'startedAt' AS "startedAt", ${iso('now()')} AS "finishedAt", $2::text AS outcome, $3::json AS tried) x),
          updated_at = now()
    WHERE t.id = $1`,
)
