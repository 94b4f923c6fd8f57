import { ExpiringMap } from '../domain/expiring-map'
import type { ListPosition, TaskListQuery } from '../domain/task-list'
import type { FullTaskJson, JsonText } from '../domain/task-document'
import type { Database, Queryable } from './database'
import { StatementNames } from './statement-names'
import { taskDocumentOf } from './task-document.sql'
import { listStatement, NARROW_RANGE, rangeCountStatement } from './task-list.sql'
import { statementsOf } from './statements'

/**
 * The task beyond the interface's three endpoints: the full task, the list, stop and refresh now
 * (deletes: task-deletes.ts). Every statement names the user: another user's task is as absent as
 * one that does not exist.
 */

/** The full task as the database wrote it. */
export type FullTaskDocument = JsonText<FullTaskJson>

/** A listed task's document with its position, for the next page's cursor. */
export interface ListedTask {
  document: FullTaskDocument
  position: ListPosition
}

export type RefreshRequest = { outcome: 'requested'; nextCheckAt: Date } | { outcome: 'too_soon'; retryAfterSeconds: number } | { outcome: 'not_found' }

/** How long, and for how many listings at most, a range's width is remembered (rangeIsNarrow). */
const RANGE_WIDTH_TTL_MS = 60_000
const RANGE_WIDTHS_KEPT = 1_000

/** A refresh now is taken at most once per this many seconds per task. */
export const REFRESH_INTERVAL_SECONDS = 60

export class TaskLifecycleRepository {
  // The list's statements, named per shape (filters, sort, page size) so that each keeps its plan.
  private readonly listNames = new StatementNames('task_list', 64)
  /**
   * rangeIsNarrow's answers by user and range, for a minute: a listing's next pages skip the
   * count (2-3 ms of the database's time a page for a wide range). The answer picks an index,
   * never the rows, so one a minute old costs at most a slower page.
   */
  private readonly rangeWidths = new ExpiringMap<boolean>(RANGE_WIDTH_TTL_MS, RANGE_WIDTHS_KEPT)

  constructor(private readonly db: Database) {}

  /** The full task's document (with its events), or undefined. */
  async findFull(userId: number, taskId: number): Promise<FullTaskDocument | undefined> {
    const [row] = await this.db.query<{ document: FullTaskDocument }>(TASK_FULL, [userId, taskId], 'task_full')
    return row?.document
  }

  /**
   * One page of the list (listStatement).
   * A time range on the column the page is not sorted by is read through its own index and sorted
   * when it holds at most NARROW_RANGE tasks of the user (counted first, through that index); a
   * wider one walks the sort's index. The planner cannot tell: creation and change times move
   * together, and it took them as independent (a kept plan walked a million rows for a day).
   */
  async list(query: TaskListQuery): Promise<ListedTask[]> {
    const { text, values } = listStatement(query, await this.rangeIsNarrow(query))
    const rows = await this.db.query<{ document: FullTaskDocument; id: number; sort_key: string }>(text, values, this.listNames.nameOf(text))
    return rows.map((row) => ({ document: row.document, position: { key: row.sort_key, id: row.id } }))
  }

  /** Whether the query has a time range on the column it is not sorted by that holds few of the user's tasks. */
  private async rangeIsNarrow(query: TaskListQuery): Promise<boolean> {
    const count = rangeCountStatement(query)
    if (!count) return false
    const key = JSON.stringify([count.name, count.values])
    const known = this.rangeWidths.get(key)
    if (known !== undefined) return known
    const [row] = await this.db.query<{ n: number }>(count.text, count.values, count.name)
    const narrow = row!.n <= NARROW_RANGE
    this.rangeWidths.set(key, narrow)
    return narrow
  }

  /**
   * Stops fetching the task: inactive, stoppedAt set (kept when stopped already), its lease
   * dropped so that a fetch in flight is not applied. Deliveries already made still go out.
   */
  async stop(tx: Queryable, userId: number, taskId: number): Promise<FullTaskDocument | undefined> {
    const {
      rows: [row],
    } = await tx.query<{ document: FullTaskDocument }>(TASK_STOP, [userId, taskId])
    return row?.document
  }

  /**
   * Makes the task due now and active again (a stopped or expired one too), at most once per
   * REFRESH_INTERVAL_SECONDS. An expired task's expiry clock starts again, so that the fetch
   * decides afresh. A lease in flight is dropped: the new fetch replaces it.
   */
  async requestRefresh(tx: Queryable, userId: number, taskId: number): Promise<RefreshRequest> {
    const {
      rows: [row],
    } = await tx.query<{ requested: boolean; next_check_at: Date | null; wait_seconds: number }>(TASK_REFRESH_REQUEST, [
      userId,
      taskId,
      REFRESH_INTERVAL_SECONDS,
    ])
    if (!row) return { outcome: 'not_found' }
    if (!row.requested) return { outcome: 'too_soon', retryAfterSeconds: Math.max(1, row.wait_seconds) }
    return { outcome: 'requested', nextCheckAt: row.next_check_at! }
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
export const TASK_FULL = sql('task_full', `SELECT ${taskDocumentOf('full')} AS document FROM tracking_tasks t WHERE t.user_id = $1 AND t.id = $2`)
const TASK_STOP = sql(
  'task_stop',
  `WITH stopped AS (
     UPDATE tracking_tasks t
        SET stopped_at = COALESCE(t.stopped_at, now()),
            inactive_since = COALESCE(t.inactive_since, now()),
            updated_at = CASE WHEN t.inactive_since IS NULL OR t.stopped_at IS NULL THEN now() ELSE t.updated_at END
      WHERE t.user_id = $1 AND t.id = $2
      RETURNING t.*
   ),
   -- After the task's row (locked by the update above), as a refresh locks them.
   unscheduled AS (
     UPDATE task_schedule s SET next_refresh_at = NULL, due_since = NULL FROM stopped WHERE s.task_id = stopped.id
     RETURNING s.*
   )
   SELECT ${taskDocumentOf('full', { schedule: 'unscheduled' })} AS document FROM stopped t`,
)
const TASK_REFRESH_REQUEST = sql(
  'task_refresh_request',
  `WITH target AS (
     SELECT id, refresh_requested_at FROM tracking_tasks WHERE user_id = $1 AND id = $2 FOR UPDATE
   ),
   requested AS (
     UPDATE tracking_tasks t
        SET refresh_requested_at = now(),
            stopped_at = NULL,
            inactive_since = NULL,
            -- The next fetch is decided afresh, even if the carrier says what it said before.
            answer_fingerprint = NULL,
            last_new_event_at = CASE WHEN t.standard_status = 'expired' THEN now() ELSE t.last_new_event_at END,
            updated_at = CASE WHEN t.inactive_since IS NOT NULL THEN now() ELSE t.updated_at END
       FROM target
      WHERE t.id = target.id
        AND (target.refresh_requested_at IS NULL OR target.refresh_requested_at <= now() - make_interval(secs => $3))
      RETURNING t.id
   ),
   scheduled AS (
     UPDATE task_schedule s
        SET next_refresh_at = now(),
            refresh_failures = 0
       FROM requested
      WHERE s.task_id = requested.id
      RETURNING s.next_refresh_at
   )
   SELECT EXISTS (SELECT 1 FROM requested) AS requested,
          (SELECT next_refresh_at FROM scheduled) AS next_check_at,
          CEIL(EXTRACT(EPOCH FROM target.refresh_requested_at + make_interval(secs => $3) - now()))::int AS wait_seconds
     FROM target`,
)
