import { statementsOf } from './statements'
import { taskDocumentOf } from './task-document.sql'

/**
 * The query endpoint's and the subscribes' statements, kept apart from the code that runs them so
 * that their plan tests can EXPLAIN them.
 */

const sql = statementsOf(import.meta.url)

// One round trip per query: the task's document as the interface answers it, its events kept
// ready on the row (events-view.ts) and its newest delivery read through the outbox's index.
const SELECT_TASK = `SELECT ${taskDocumentOf('query')} AS document FROM tracking_tasks t`

export const TASK_BY_ID_SQL = sql('task_by_id', `${SELECT_TASK} WHERE t.user_id = $1 AND t.id = $2`)
export const TASK_BY_NUMBER_SQL = sql('task_by_number', `${SELECT_TASK} WHERE t.user_id = $1 AND t.tracking_number = $2 ORDER BY t.id DESC LIMIT 1`)
// The same two lookups for many queries at once: one answer row per query that finds a task,
// tagged with the query's position (`ord`).
export const TASKS_BY_ID_MANY_SQL = sql(
  'tasks_by_id_many',
  `
  SELECT q.ord, x.document
    FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS q (user_id, id, ord)
   CROSS JOIN LATERAL (${SELECT_TASK} WHERE t.user_id = q.user_id AND t.id = q.id) x`,
)
export const TASKS_BY_NUMBER_MANY_SQL = sql(
  'tasks_by_number_many',
  `
  SELECT q.ord, x.document
    FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS q (user_id, tracking_number, ord)
   CROSS JOIN LATERAL (${SELECT_TASK} WHERE t.user_id = q.user_id AND t.tracking_number = q.tracking_number ORDER BY t.id DESC LIMIT 1) x`,
)

// Batch subscribe: insert the missing tasks, and find the id of each one that existed. Rows of
// several batches (several users) share the statement, told apart by position (`ord`). Each row
// carries its batch's item count (`batch_size`): a batch larger than the batchMaxItems setting,
// read in the same snapshot, writes nothing (its rows come back without an id, beside the
// setting). The existing task is looked up per conflicting item through the unique key, in a
// subquery the planner cannot turn into a join: a join was planned as a scan of all of the
// user's tasks whenever the statistics lagged behind a fast-growing table (17 ms instead of 2 ms
// a batch).
export const INSERT_MISSING_SQL = sql(
  'task_insert_missing',
  `
  WITH limits AS (
    SELECT batch_max_items FROM settings WHERE id
  ),
  input AS (
    -- The setting as a scalar subquery (evaluated once): joined as a table instead, ten
    -- concurrent statements on PostgreSQL took 2 s each instead of 14 ms (measured, 2 cores).
    SELECT i.*, i.batch_size <= (SELECT batch_max_items FROM limits) AS allowed, (SELECT batch_max_items FROM limits) AS batch_max_items
      FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[])
           WITH ORDINALITY AS i (user_id, carrier_code, tracking_number, callback_url, external_reference_no, batch_size, page_token, ord)
  ),
  inserted AS (
    INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, external_reference_no, page_token)
    SELECT user_id, carrier_code, tracking_number, callback_url, external_reference_no, page_token FROM input WHERE allowed ORDER BY ord
    ON CONFLICT (user_id, carrier_code, tracking_number) DO NOTHING
    RETURNING id, user_id, carrier_code, tracking_number
  )
  SELECT i.ord, i.batch_max_items,
         CASE WHEN i.allowed THEN
           COALESCE(n.id, (SELECT t.id FROM tracking_tasks t
                            WHERE t.user_id = i.user_id AND t.carrier_code = i.carrier_code AND t.tracking_number = i.tracking_number))
         END AS id,
         n.id IS NOT NULL AS created
    FROM input i
    LEFT JOIN inserted n ON n.user_id = i.user_id AND n.carrier_code = i.carrier_code AND n.tracking_number = i.tracking_number`,
)
