import { randomBytes } from 'node:crypto'
import type { StandardStatus } from '../domain/statuses'
import type { TrackingTask } from '../domain/tracking-task'
import { isTerminal, type CarrierEvent, type TaskRefreshState, type TaskUpdate } from '../domain/tracking-update'
import type { Database, Queryable } from './database'
import { TASK_BY_ID_SQL, toTask, type TaskRow } from './task.repository'

/**
 * The refresh scheduler's storage. A claim moves a due task's next_refresh_at forward by the
 * lease and stamps it with a lease token: other workers skip it (SKIP LOCKED while the claim
 * commits, then simply not due), and if the claimer dies the task is due again when the lease
 * runs out. Only the holder of the token may apply a result or release the task.
 */

export interface ClaimedTask {
  id: number
  carrierCode: string
  trackingNumber: string
  leaseToken: string
}

export interface ApplyInput {
  events: CarrierEvent[]
  /** Decides the task's new state once the number of genuinely new events is known. */
  decide(state: TaskRefreshState, newEventCount: number): TaskUpdate
  /** When the task is due next if it stays active. */
  nextRefreshInMs: number
  /** Builds the outbox payload of a status change from the task as it is after the change. */
  notification(task: TrackingTask, previous: { standardStatus: StandardStatus; carrierStatus: string }): unknown
}

export type ApplyOutcome = { applied: false } | { applied: true; update: TaskUpdate; notified: boolean }

export class RefreshRepository {
  private claims = 0
  private readonly workerId = randomBytes(6).toString('hex')

  constructor(private readonly db: Database) {}

  /** Claims up to `limit` due tasks, oldest due first, skipping carriers in `pausedCarriers`. */
  async claimDue(limit: number, leaseMs: number, pausedCarriers: string[] = []): Promise<ClaimedTask[]> {
    const leaseToken = `${this.workerId}:${++this.claims}`
    const rows = await this.db.query<{ id: number; carrier_code: string; tracking_number: string }>(
      `UPDATE tracking_tasks t
          SET next_refresh_at = now() + make_interval(secs => $2::float8 / 1000),
              refresh_lease_until = now() + make_interval(secs => $2::float8 / 1000),
              refresh_lease_owner = $3
        WHERE t.id IN (
          SELECT id FROM tracking_tasks
           WHERE next_refresh_at <= now()
             AND carrier_code <> ALL($4::text[])
           ORDER BY next_refresh_at
           LIMIT $1
           FOR UPDATE SKIP LOCKED)
        RETURNING t.id, t.carrier_code, t.tracking_number`,
      [limit, leaseMs, leaseToken, pausedCarriers],
    )
    return rows.map((r) => ({ id: r.id, carrierCode: r.carrier_code, trackingNumber: r.tracking_number, leaseToken }))
  }

  /**
   * A failed fetch changes nothing on the task: only its schedule moves, by exponential backoff
   * (with jitter) from `baseMs`, at least `minDelayMs` (a carrier's Retry-After), at most `maxMs`.
   */
  async releaseFailed(tasks: ClaimedTask[], delay: { baseMs: number; maxMs: number; minDelayMs: number }): Promise<void> {
    if (tasks.length === 0) return
    await this.db.query(
      `UPDATE tracking_tasks
          SET refresh_failures = refresh_failures + 1,
              next_refresh_at = now() + make_interval(secs => GREATEST($4::float8,
                LEAST($3::float8, $2::float8 * power(2, LEAST(refresh_failures, 20))) * (0.8 + random() * 0.4)) / 1000),
              refresh_lease_owner = NULL,
              refresh_lease_until = NULL
        WHERE id = ANY($1::bigint[]) AND refresh_lease_owner = ANY($5::text[])`,
      [tasks.map((t) => t.id), delay.baseMs, delay.maxMs, delay.minDelayMs, [...new Set(tasks.map((t) => t.leaseToken))]],
    )
  }

  /**
   * Applies one successful fetch in one short transaction: merge the events, decide and write the
   * new state, and record a notification in the outbox when the status changed. Nothing here waits
   * on a carrier. Returns applied: false when the lease was lost to another worker.
   */
  async apply(task: ClaimedTask, input: ApplyInput): Promise<ApplyOutcome> {
    return this.db.transaction(async (tx) => {
      const [current] = (
        await tx.query<{ user_id: number; standard_status: StandardStatus; carrier_status: string; created_at: Date; last_new_event_at: Date | null }>(
          `SELECT user_id, standard_status, carrier_status, created_at, last_new_event_at
             FROM tracking_tasks
            WHERE id = $1 AND refresh_lease_owner = $2
            FOR UPDATE`,
          [task.id, task.leaseToken],
        )
      ).rows
      if (!current) return { applied: false }

      const newEventCount = await insertEvents(tx, task.id, input.events)
      const previous = { standardStatus: current.standard_status, carrierStatus: current.carrier_status }
      const update = input.decide(
        { ...previous, createdAt: current.created_at, lastNewEventAt: current.last_new_event_at },
        newEventCount,
      )
      await tx.query(
        `UPDATE tracking_tasks
            SET standard_status = $2,
                carrier_status = $3,
                estimated_delivery_at = COALESCE($4, estimated_delivery_at),
                origin_address = COALESCE($5::jsonb, origin_address),
                destination_address = COALESCE($6::jsonb, destination_address),
                last_new_event_at = $7,
                last_fetched_at = now(),
                refresh_failures = 0,
                next_refresh_at = CASE WHEN $8 THEN NULL ELSE now() + make_interval(secs => $9::float8 / 1000) END,
                refresh_lease_owner = NULL,
                refresh_lease_until = NULL,
                updated_at = now()
          WHERE id = $1`,
        [
          task.id,
          update.standardStatus,
          update.carrierStatus,
          update.estimatedDeliveryAt ?? null,
          update.originAddress ? JSON.stringify(update.originAddress) : null,
          update.destinationAddress ? JSON.stringify(update.destinationAddress) : null,
          update.lastNewEventAt,
          isTerminal(update.standardStatus),
          input.nextRefreshInMs,
        ],
      )
      if (!update.statusChanged) return { applied: true, update, notified: false }

      const [row] = (await tx.query<TaskRow>(TASK_BY_ID_SQL, [current.user_id, task.id])).rows
      const payload = input.notification(toTask(row!), previous)
      await tx.query(
        `INSERT INTO webhook_deliveries (task_id, webhook_id, payload, status, next_attempt_at)
         VALUES ($1, $2, $3, 'pending', now())`,
        [task.id, `msg_${randomBytes(16).toString('hex')}`, JSON.stringify(payload)],
      )
      return { applied: true, update, notified: true }
    })
  }

  /** Seconds the most overdue active task has been waiting (0 when none is due). */
  async refreshLagSeconds(): Promise<number> {
    const [row] = await this.db.query<{ lag: number | null }>(
      `SELECT EXTRACT(EPOCH FROM now() - min(next_refresh_at))::float8 AS lag FROM tracking_tasks WHERE next_refresh_at <= now()`,
    )
    return Math.max(0, row?.lag ?? 0)
  }
}

async function insertEvents(tx: Queryable, taskId: number, events: CarrierEvent[]): Promise<number> {
  if (events.length === 0) return 0
  const column = <K extends keyof CarrierEvent>(key: K) => events.map((e) => e[key])
  const result = await tx.query(
    `INSERT INTO tracking_events (task_id, event_key, event_time, event_code, status, status_info, description,
                                  exception_description, country, state, city, postal_code, address)
     SELECT $1, * FROM unnest($2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[],
                              $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[])
     ON CONFLICT (task_id, event_key) DO NOTHING
     RETURNING id`,
    [
      taskId,
      column('key'),
      events.map((e) => e.eventTime.toISOString()),
      column('eventCode'),
      column('status'),
      column('statusInfo'),
      column('description'),
      column('exceptionDescription'),
      column('country'),
      column('state'),
      column('city'),
      column('postalCode'),
      column('address'),
    ],
  )
  return result.rowCount ?? 0
}
