import { TERMINAL_STATUSES } from '../domain/tracking-update'
import type { Database } from './database'
import { PREDICTION_OF_TASK } from './prediction.sql'
import { statementsOf } from './statements'

/**
 * Makes again the predictions of up to `limit` tasks in transit (past their first scan, not
 * terminal) after task `afterId`, in id order, locked in that order as a refresh locks its tasks (each batch its own transaction):
 * the last task id remade, or null when none was left. Run in batches when predictionSharing
 * changes, so that no prediction rests on deliveries the setting no longer lets it use.
 */
export async function remakePredictions(db: Database, afterId: number, limit: number): Promise<number | null> {
  const [row] = await db.query<{ last: string | null }>(PREDICTIONS_REMAKE, [afterId, limit], 'predictions_remake')
  return row!.last === null ? null : Number(row!.last)
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
export const PREDICTIONS_REMAKE = sql(
  'predictions_remake',
  `WITH due AS (
     SELECT id FROM tracking_tasks
      WHERE id > $1 AND transit_started_at IS NOT NULL AND standard_status NOT IN (${[...TERMINAL_STATUSES].map((s) => `'${s}'`).join(', ')})
      ORDER BY id
      LIMIT $2
        FOR UPDATE
   ),
   remade AS (
     UPDATE tracking_tasks t
        SET (predicted_delivery_at, prediction) = (${PREDICTION_OF_TASK})
       FROM due
      WHERE t.id = due.id
      RETURNING t.id
   )
   SELECT max(id) AS last FROM remade`,
)
