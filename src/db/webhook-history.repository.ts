import type { WebhookStatus } from '../domain/statuses'
import type { DeliveryRecord } from '../domain/webhook-record'
import type { Database, Queryable } from './database'
import { nextRetryAtOf } from './task-document.sql'
import { statementsOf } from './statements'
import { isCallback } from './outbox-targets.sql'

/** The webhook outbox's record side: a task's deliveries with every attempt, and a redeliver. */
export class WebhookHistoryRepository {
  constructor(private readonly db: Database) {}

  /** A task's deliveries with their attempts, newest first; undefined when not the user's task. */
  async history(userId: number, taskId: number, limit: number): Promise<DeliveryRecord[] | undefined> {
    const rows = await this.db.query<{ owned: boolean; record: DeliveryRecord | null }>(WEBHOOK_HISTORY, [userId, taskId, limit])
    if (rows.length === 0) return undefined
    return rows.filter((r) => r.record && r.record.webhookId !== null).map((r) => reviveDates(r.record!))
  }

  /**
   * Sends a delivery again: success, failed and retry_wait go back to pending (due now) and start a
   * new cycle of the schedule; pending and sending are already on their way and stay as they are.
   * undefined when the user has no such delivery.
   */
  async redeliver(tx: Queryable, userId: number, taskId: number, webhookId: string): Promise<WebhookStatus | undefined> {
    const { rows } = await tx.query<{ status: WebhookStatus }>(WEBHOOK_REDELIVER, [userId, taskId, webhookId])
    return rows[0]?.status
  }
}

function reviveDates(record: DeliveryRecord): DeliveryRecord {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string))
  return {
    ...record,
    nextRetryAt: date(record.nextRetryAt),
    lastAttemptAt: date(record.lastAttemptAt),
    createdAt: new Date(record.createdAt as unknown as string),
    attempts: record.attempts.map((a) => ({ ...a, startedAt: new Date(a.startedAt as unknown as string) })),
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const WEBHOOK_HISTORY = sql(
  'webhook_history',
  `SELECT true AS owned, (
            SELECT json_build_object(
              'webhookId', d.webhook_id, 'type', d.event_type, 'status', d.status, 'attemptCount', d.attempt_count,
              'nextRetryAt', ${nextRetryAtOf('d')},
              'lastAttemptAt', d.last_attempt_at, 'responseStatusCode', d.response_status_code,
              'errorMessage', d.error_message, 'createdAt', d.created_at,
              'attempts', COALESCE((
                SELECT json_agg(json_build_object(
                         'attemptNumber', a.attempt_number, 'startedAt', a.started_at, 'durationMs', a.duration_ms,
                         'responseStatusCode', a.response_status_code, 'errorMessage', a.error_message,
                         'responseBody', a.response_body_excerpt) ORDER BY a.attempt_number)
                  FROM delivery_attempts a WHERE a.delivery_id = d.id), '[]'::json))
          ) AS record
     FROM tracking_tasks t
     LEFT JOIN LATERAL (
       SELECT * FROM deliveries d WHERE d.task_id = t.id AND ${isCallback('d')} ORDER BY d.id DESC LIMIT $3
     ) d ON true
    WHERE t.id = $2 AND t.user_id = $1
    ORDER BY d.id DESC`,
)
const WEBHOOK_REDELIVER = sql(
  'webhook_redeliver',
  `WITH target AS (
     SELECT d.id, d.status FROM deliveries d JOIN tracking_tasks t ON t.id = d.task_id
      WHERE t.user_id = $1 AND t.id = $2 AND d.webhook_id = $3
      FOR UPDATE OF d
   ),
   restarted AS (
     UPDATE deliveries d
        SET status = 'pending', next_attempt_at = now(), cycle_start_attempt = d.attempt_count, updated_at = now()
       FROM target
      WHERE d.id = target.id AND target.status IN ('success', 'failed', 'retry_wait')
      RETURNING d.status
   )
   SELECT COALESCE((SELECT status FROM restarted), (SELECT status FROM target)) AS status
    WHERE EXISTS (SELECT 1 FROM target)`,
)
