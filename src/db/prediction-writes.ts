import { TERMINAL_STATUSES } from '../domain/tracking-update'
import type { Queryable } from './database'
import { PREDICTION_OF_TASK } from './prediction.sql'
import { statementsOf } from './statements'

/** Tasks whose predictions are made again in one transaction. */
const REMAKE_BATCH = 5_000

/**
 * Makes again the prediction of the next REMAKE_BATCH tasks in transit (past their first scan,
 * not terminal) after `afterId`, locked in id order as a refresh locks its tasks; the last id
 * remade, null when none was left. Called batch after batch, each in a transaction of its own,
 * when predictionSharing changes, so that no prediction rests on deliveries the setting no longer
 * lets it use.
 */
export async function remakePredictionsAfter(tx: Queryable, afterId: number): Promise<number | null> {
  const { rows } = await tx.query<{ last: string | null }>(PREDICTIONS_REMAKE, [afterId, REMAKE_BATCH], 'predictions_remake')
  return rows[0]!.last === null ? null : Number(rows[0]!.last)
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
