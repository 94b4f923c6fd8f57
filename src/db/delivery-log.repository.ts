import type { EventType } from '../domain/event-types'
import type { ListPosition } from '../domain/list-cursor'
import type { WebhookStatus } from '../domain/statuses'
import type { Database, Queryable } from './database'
import { nextRetryAtOf } from './task-document.sql'
import { statementsOf } from './statements'
import { targetOpen } from './outbox-targets.sql'

/**
 * The account-wide delivery log (every delivery of a user: its tasks' callbacks and its
 * endpoints'), newest first, and the bulk replay of failed deliveries. Read along
 * deliveries_user_idx (user_id, created_at, id) from the cursor's position; the failed
 * ones along their partial index.
 */

export interface DeliveryLogFilters {
  status?: WebhookStatus
  eventType?: EventType
  endpointId?: number
  taskId?: number
  createdFrom?: Date
  createdTo?: Date
}

export interface DeliveryLogEntry {
  webhookId: string
  eventType: EventType
  taskId: number
  /** null: the task's own callbackUrl. */
  endpointId: number | null
  status: WebhookStatus
  attemptCount: number
  createdAt: Date
  lastAttemptAt: Date | null
  nextRetryAt: Date | null
  responseStatusCode: number
  errorMessage: string
}

interface LogRow {
  id: number
  sort_key: string
  webhook_id: string
  event_type: EventType
  task_id: number
  endpoint_id: number | null
  status: WebhookStatus
  attempt_count: number
  created_at: Date
  last_attempt_at: Date | null
  next_retry_at: Date | null
  response_status_code: number
  error_message: string
}

export interface ReplayWindow {
  createdFrom: Date
  createdTo: Date
  endpointId?: number
}

/** One page of the log (and one more row, to tell whether there is a next one): newest first, from the cursor's position. */
export function logStatement(userId: number, filters: DeliveryLogFilters, limit: number, after: ListPosition | undefined): { text: string; values: unknown[] } {
  const values: unknown[] = [userId]
  const param = (value: unknown) => `$${values.push(value)}`
  // The webhooks' log: the customer's messages are the tasks' own (GET …/{taskId}).
  const where = ['d.user_id = $1', "d.channel = 'webhook'"]
  if (filters.status) where.push(`d.status = ${param(filters.status)}`)
  if (filters.eventType) where.push(`d.event_type = ${param(filters.eventType)}`)
  if (filters.endpointId !== undefined) where.push(`d.endpoint_id = ${param(filters.endpointId)}`)
  if (filters.taskId !== undefined) where.push(`d.task_id = ${param(filters.taskId)}`)
  if (filters.createdFrom) where.push(`d.created_at >= ${param(filters.createdFrom)}`)
  if (filters.createdTo) where.push(`d.created_at < ${param(filters.createdTo)}`)
  if (after) where.push(`(d.created_at, d.id) < (${param(after.key)}::timestamptz, ${param(after.id)}::bigint)`)
  return {
    text: `SELECT d.id, d.created_at::text AS sort_key, d.webhook_id, d.event_type, d.task_id, d.endpoint_id, d.status, d.attempt_count,
                  d.created_at, d.last_attempt_at, ${nextRetryAtOf('d')} AS next_retry_at,
                  d.response_status_code, d.error_message
             FROM deliveries d
            WHERE ${where.join(' AND ')}
            ORDER BY d.created_at DESC, d.id DESC
            LIMIT ${param(limit + 1)}`,
    values,
  }
}

/** The failed deliveries of a user's window (of one endpoint when given), oldest first, locked: the bulk replay's pick. */
export const REPLAY_PICK_SQL = `
  SELECT d.id
    FROM deliveries d
   WHERE d.user_id = $1 AND d.status = 'failed' AND d.channel = 'webhook'
     AND d.created_at >= $2 AND d.created_at < $3
     AND ($4::bigint IS NULL OR d.endpoint_id = $4)
     AND ${targetOpen('d')}
   ORDER BY d.created_at, d.id
   LIMIT $5
   FOR UPDATE OF d SKIP LOCKED`

export class DeliveryLogRepository {
  constructor(private readonly db: Database) {}

  /** One page (and one more row, to tell whether there is a next one). */
  async list(
    userId: number,
    filters: DeliveryLogFilters,
    limit: number,
    after: ListPosition | undefined,
  ): Promise<{ entry: DeliveryLogEntry; position: ListPosition }[]> {
    const { text, values } = logStatement(userId, filters, limit, after)
    const rows = await this.db.query<LogRow>(text, values)
    return rows.map((r) => ({
      position: { key: r.sort_key, id: r.id },
      entry: {
        webhookId: r.webhook_id,
        eventType: r.event_type,
        taskId: r.task_id,
        endpointId: r.endpoint_id,
        status: r.status,
        attemptCount: r.attempt_count,
        createdAt: r.created_at,
        lastAttemptAt: r.last_attempt_at,
        nextRetryAt: r.next_retry_at,
        responseStatusCode: r.response_status_code,
        errorMessage: r.error_message,
      },
    }))
  }

  /**
   * Puts up to `limit` failed deliveries of the window back to pending (due now, on a fresh cycle
   * of the schedule, the same webhook-id), oldest first; a disabled endpoint's stay failed. A
   * second call finds them no longer failed: replay is idempotent. Returns how many it queued.
   */
  async replayFailed(tx: Queryable, userId: number, window: ReplayWindow, limit: number): Promise<number> {
    const { rows } = await tx.query(DELIVERY_LOG_REPLAY, [userId, window.createdFrom, window.createdTo, window.endpointId ?? null, limit])
    return rows.length
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const DELIVERY_LOG_REPLAY = sql(
  'delivery_log_replay',
  `WITH picked AS (${REPLAY_PICK_SQL})
   UPDATE deliveries d
      SET status = 'pending', next_attempt_at = now(), cycle_start_attempt = d.attempt_count, updated_at = now()
     FROM picked
    WHERE d.id = picked.id
    RETURNING d.id`,
)
sql.family('delivery_log', () => [
  { label: 'the first page, every delivery', text: logStatement(1, {}, 50, undefined).text },
  {
    label: 'the next page of one status, type, endpoint and task in a window',
    text: logStatement(
      1,
      { status: 'failed', eventType: 'tracking.status_changed', endpointId: 1, taskId: 1, createdFrom: new Date(0), createdTo: new Date(1) },
      50,
      { key: '2026-11-20 00:00:00+00', id: 1 },
    ).text,
  },
])
