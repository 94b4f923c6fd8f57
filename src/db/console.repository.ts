import type { ApiUserRow } from './api-user.repository'
import type { Database, Queryable } from './database'
import { statementsOf } from './statements'
import { addressOf, isCallback } from './outbox-targets.sql'

/** The API user a task belongs to, as the console names them. */
export type TaskOwner = Pick<ApiUserRow, 'id' | 'name'>

/**
 * What the operator console reads across users. Every query is bounded: the counts are one pass
 * over the tasks (the console service caches them), the last 24 h and the search go user by user
 * through each user's own indexes, lists stop at a page.
 */

export interface TaskCountRow {
  standard_status: string | null
  milestone: string | null
  carrier_code: string | null
  tasks: number
}

export interface HourRow {
  hour: Date
  status_changes: number
  deliveries: number
  succeeded: number
  /** Waiting for a retry after a failed attempt. */
  retrying: number
  failed: number
}

export interface ConsoleTaskRow {
  id: number
  user_id: number
  user_name: string
  carrier_code: string
  tracking_number: string
  external_reference_no: string
  standard_status: string
  milestone: string
  updated_at: Date
}

export interface FailingDeliveryRow {
  id: number
  user_id: number
  user_name: string
  task_id: number
  webhook_id: string
  event_type: string
  status: string
  attempt_count: number
  created_at: Date
  last_error: string
  last_status_code: number
  /** Where it goes: its endpoint's URL, or its task's callback URL (as they are now). */
  target_url: string
}

const TASK_COLUMNS = `t.id, t.user_id, u.name AS user_name, t.carrier_code, t.tracking_number, t.external_reference_no, t.standard_status, t.milestone, t.updated_at`

// The overview's counts read every task (0.4-1.3 s over 1,000,000 on the bench's hosts): more than
// a request's statement deadline, and an operator waits for them (they are cached a while after).
const REPORT_DEADLINE_MS = 60_000

export class ConsoleRepository {
  constructor(private readonly db: Database) {}

  /** Tasks by status, by milestone and by carrier, in one pass. */
  taskCounts(): Promise<TaskCountRow[]> {
    return this.db.queryWithin<TaskCountRow>(REPORT_DEADLINE_MS, CONSOLE_TASK_COUNTS)
  }

  /** The last 24 hours by hour, user by user through each user's index on (user_id, created_at). */
  lastDay(): Promise<HourRow[]> {
    return this.db.queryWithin<HourRow>(REPORT_DEADLINE_MS, CONSOLE_LAST_DAY)
  }

  /**
   * Waiting tasks per carrier: those due now (the due index) and those backing off after a failed
   * fetch (the failing index); the oldest one's wait runs from the due time it first missed.
   */
  refreshBacklog(carrierCodes: readonly string[]): Promise<{ carrier_code: string; due: number; oldest_seconds: number | null }[]> {
    return this.db.queryWithin(REPORT_DEADLINE_MS, CONSOLE_REFRESH_BACKLOG, [carrierCodes])
  }

  /**
   * Tasks across users, newest first: those whose tracking number or external reference is
   * `search` (each user's own indexes), or all, filtered by status and carrier, a page after `beforeId`.
   */
  searchTasks(filters: ConsoleSearch): Promise<ConsoleTaskRow[]> {
    const { text, values } = searchStatement(filters)
    return this.db.query<ConsoleTaskRow>(text, values)
  }

  async endpointOwner(tx: Queryable, endpointId: number): Promise<number | undefined> {
    const {
      rows: [row],
    } = await tx.query<{ user_id: number }>(CONSOLE_ENDPOINT_OWNER, [endpointId])
    return row?.user_id
  }

  /** The users with a delivery failed for good created in the window (each user's failed index). */
  async usersWithFailed(tx: Queryable, createdFrom: Date, createdTo: Date): Promise<number[]> {
    const { rows } = await tx.query<{ id: number }>(CONSOLE_USERS_WITH_FAILED, [createdFrom, createdTo])
    return rows.map((r) => r.id)
  }

  async ownerOf(taskId: number): Promise<TaskOwner | undefined> {
    const [row] = await this.db.query<TaskOwner>(CONSOLE_TASK_OWNER, [taskId])
    return row
  }

  /**
   * Deliveries failing now across users: waiting for a retry after a failed attempt, or failed
   * for good in the last 24 hours; newest first, user by user through the due index and each
   * user's failed index.
   */
  failingDeliveries(limit: number): Promise<FailingDeliveryRow[]> {
    return this.db.query<FailingDeliveryRow>(CONSOLE_FAILING_DELIVERIES, [limit])
  }
}

export interface ConsoleSearch {
  search?: string
  standardStatus?: string
  milestone?: string
  carrierCode?: string
  userId?: number
  beforeId?: number
  limit: number
}

/** The console's task search: its text depends on the filters given. */
function searchStatement(filters: ConsoleSearch): { text: string; values: unknown[] } {
  const values: unknown[] = [filters.limit]
  const where: string[] = []
  const add = (value: unknown) => `$${values.push(value)}`
  if (filters.standardStatus) where.push(`t.standard_status = ${add(filters.standardStatus)}`)
  if (filters.milestone) where.push(`t.milestone = ${add(filters.milestone)}`)
  if (filters.carrierCode) where.push(`t.carrier_code = ${add(filters.carrierCode)}`)
  if (filters.userId) where.push(`t.user_id = ${add(filters.userId)}`)
  if (filters.beforeId) where.push(`t.id < ${add(filters.beforeId)}`)
  const and = where.length > 0 ? `AND ${where.join(' AND ')}` : ''
  if (filters.search) {
    const search = add(filters.search)
    return {
      text: `SELECT ${TASK_COLUMNS}
               FROM api_users u
               CROSS JOIN LATERAL (
                 SELECT id FROM tracking_tasks WHERE user_id = u.id AND tracking_number = ${search}
                 UNION
                 SELECT id FROM tracking_tasks WHERE user_id = u.id AND external_reference_no = ${search} AND external_reference_no <> '') found
               JOIN tracking_tasks t ON t.id = found.id
              WHERE true ${and}
              ORDER BY t.id DESC
              LIMIT $1`,
      values,
    }
  }
  return {
    text: `SELECT ${TASK_COLUMNS} FROM tracking_tasks t JOIN api_users u ON u.id = t.user_id WHERE true ${and} ORDER BY t.id DESC LIMIT $1`,
    values,
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const CONSOLE_TASK_COUNTS = sql(
  'console_task_counts',
  `SELECT standard_status, milestone, carrier_code, count(*)::int AS tasks
     FROM tracking_tasks
    GROUP BY GROUPING SETS ((standard_status), (milestone), (carrier_code))`,
)
const CONSOLE_LAST_DAY = sql(
  'console_last_day',
  `SELECT h.hour,
          count(d.id) FILTER (WHERE ${isCallback('d')})::int AS status_changes,
          count(d.id)::int AS deliveries,
          count(d.id) FILTER (WHERE d.status = 'success')::int AS succeeded,
          count(d.id) FILTER (WHERE d.status = 'retry_wait')::int AS retrying,
          count(d.id) FILTER (WHERE d.status = 'failed')::int AS failed
     FROM generate_series(date_trunc('hour', now()) - interval '23 hours', date_trunc('hour', now()), interval '1 hour') AS h (hour)
     LEFT JOIN (SELECT d.id, d.target, d.status, d.created_at
                  FROM api_users u
                  -- OFFSET 0 keeps the subquery per user (an index range each), whatever the table's size.
                  CROSS JOIN LATERAL (SELECT id, target, status, created_at FROM deliveries
                                       WHERE user_id = u.id AND created_at >= date_trunc('hour', now()) - interval '23 hours' OFFSET 0) d) d
       ON date_trunc('hour', d.created_at) = h.hour
    GROUP BY h.hour
    ORDER BY h.hour`,
)
const CONSOLE_REFRESH_BACKLOG = sql(
  'console_refresh_backlog',
  `SELECT c.carrier_code, due.due + failing.backing_off AS due,
          EXTRACT(EPOCH FROM now() - LEAST(due.oldest, failing.oldest))::float8 AS oldest_seconds
     FROM unnest($1::text[]) AS c (carrier_code)
     CROSS JOIN LATERAL (
       SELECT count(*)::int AS due, min(s.next_refresh_at) AS oldest
         FROM task_schedule s
        WHERE s.carrier_code = c.carrier_code AND s.next_refresh_at <= now()) AS due
     CROSS JOIN LATERAL (
       SELECT count(*) FILTER (WHERE s.next_refresh_at > now())::int AS backing_off, min(s.due_since) AS oldest
         FROM task_schedule s
        WHERE s.carrier_code = c.carrier_code AND s.due_since IS NOT NULL) AS failing`,
)
const CONSOLE_ENDPOINT_OWNER = sql('console_endpoint_owner', 'SELECT user_id FROM webhook_endpoints WHERE id = $1')
const CONSOLE_USERS_WITH_FAILED = sql(
  'console_users_with_failed',
  `SELECT u.id FROM api_users u
    WHERE EXISTS (SELECT 1 FROM deliveries d WHERE d.user_id = u.id AND d.status = 'failed' AND d.created_at >= $1 AND d.created_at < $2)
    ORDER BY u.id`,
)
const CONSOLE_TASK_OWNER = sql('console_task_owner', 'SELECT u.id, u.name FROM tracking_tasks t JOIN api_users u ON u.id = t.user_id WHERE t.id = $1')
const CONSOLE_FAILING_DELIVERIES = sql(
  'console_failing_deliveries',
  `SELECT d.id, d.user_id, u.name AS user_name, d.task_id, d.webhook_id, d.event_type, d.status, d.attempt_count, d.created_at,
          COALESCE(a.error_message, '') AS last_error, COALESCE(a.response_status_code, 0) AS last_status_code,
          -- A message's address is the customer's: named by its channel, never shown.
          CASE WHEN d.target = 'recipient' THEN 'the customer, by ' || d.channel ELSE COALESCE(${addressOf('d')}, '') END AS target_url
     FROM (SELECT * FROM deliveries WHERE status = 'retry_wait'
           UNION ALL
           SELECT f.* FROM api_users fu
           CROSS JOIN LATERAL (SELECT * FROM deliveries WHERE user_id = fu.id AND status = 'failed' AND created_at >= now() - interval '24 hours' OFFSET 0) f) d
     JOIN api_users u ON u.id = d.user_id
     LEFT JOIN LATERAL (SELECT error_message, response_status_code FROM delivery_attempts WHERE delivery_id = d.id ORDER BY attempt_number DESC LIMIT 1) a ON true
    ORDER BY d.created_at DESC, d.id DESC
    LIMIT $1`,
)
sql.family('console_task_search', () => [
  { label: 'a tracking number or reference across users', text: searchStatement({ search: 'x', limit: 51 }).text },
  { label: 'a status and a carrier, after a task id', text: searchStatement({ standardStatus: 'x', carrierCode: 'x', beforeId: 1, limit: 51 }).text },
  { label: 'a milestone (the overview links to it)', text: searchStatement({ milestone: 'x', limit: 51 }).text },
  { label: "one user's tasks", text: searchStatement({ userId: 1, limit: 51 }).text },
  { label: 'every task, newest first', text: searchStatement({ limit: 51 }).text },
])
