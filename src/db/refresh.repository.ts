import { randomBytes } from 'node:crypto'
import type { StandardStatus } from '../domain/statuses'
import type { TrackingTask } from '../domain/tracking-task'
import { isTerminal, type CarrierEvent, type TaskRefreshState, type TaskUpdate } from '../domain/tracking-update'
import { Coalescer } from './coalescer'
import type { Database, Queryable } from './database'
import { toTask, type TaskRow } from './task.repository'
import { TASK_VIEW_COLUMNS, eventsViewOf } from './task.sql'

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

/** One task's successful fetch, as `apply` takes it. */
export interface ApplyItem extends ApplyInput {
  task: ClaimedTask
}

export type ApplyOutcome = { applied: false } | { applied: true; update: TaskUpdate; notified: boolean }

export class RefreshRepository {
  private claims = 0
  private readonly workerId = randomBytes(6).toString('hex')
  /**
   * The answers that arrive while one is being applied are applied together, in one transaction:
   * the same statements for all their tasks. No task is in two answers (a claim holds it once).
   */
  private readonly applies: Coalescer<ApplyItem[], ApplyOutcome[]>

  constructor(private readonly db: Database) {
    this.applies = new Coalescer<ApplyItem[], ApplyOutcome[]>({
      // The embedded database runs one transaction at a time anyway; PostgreSQL runs a few side by side.
      maxInFlight: db.kind === 'embedded' ? 1 : 4,
      maxGroup: 20,
      run: async (answers) => {
        const outcomes = await this.applyNow(answers.flat())
        let from = 0
        return answers.map((items) => outcomes.slice(from, (from += items.length)))
      },
      runOne: (items) => this.applyNow(items),
    })
  }

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
   * Applies the answers of one carrier request (with those of the requests that arrive meanwhile)
   * in one short transaction, whatever the number of tasks: lock the tasks still held under their
   * leases, merge all events in one statement, decide each task's new state, write all of them in
   * one statement, and record the status changes in the outbox in one more. Nothing here waits on a carrier. The outcome of each item,
   * in order; applied: false when its lease was lost to another worker.
   */
  async apply(items: ApplyItem[]): Promise<ApplyOutcome[]> {
    if (items.length === 0) return []
    return this.applies.submit(items)
  }

  private applyNow(items: ApplyItem[]): Promise<ApplyOutcome[]> {
    return this.db.transaction(async (tx) => {
      // Locked in id order, as every multi-task statement of the refresh does, so that two
      // transactions sharing tasks wait for each other instead of deadlocking.
      const { rows: held } = await tx.query<{ id: number; user_id: number; standard_status: StandardStatus; carrier_status: string; created_at: Date; last_new_event_at: Date | null }>(
        `SELECT t.id, t.user_id, t.standard_status, t.carrier_status, t.created_at, t.last_new_event_at
           FROM tracking_tasks t
           JOIN unnest($1::bigint[], $2::text[]) AS c (id, lease_owner) ON c.id = t.id AND c.lease_owner = t.refresh_lease_owner
          ORDER BY t.id
            FOR UPDATE OF t`,
        [items.map((i) => i.task.id), items.map((i) => i.task.leaseToken)],
        'refresh_lock',
      )
      const current = new Map(held.map((row) => [row.id, row]))
      const mine = items.filter((i) => current.has(i.task.id))
      const newEvents = await insertEvents(tx, mine)

      const updates = mine.map((item) => {
        const row = current.get(item.task.id)!
        const previous = { standardStatus: row.standard_status, carrierStatus: row.carrier_status }
        const update = item.decide({ ...previous, createdAt: row.created_at, lastNewEventAt: row.last_new_event_at }, newEvents.get(item.task.id) ?? 0)
        return { item, row, previous, update }
      })
      const views = await updateTasks(
        tx,
        updates.map(({ item, update }) => ({ id: item.task.id, update, gainedEvents: newEvents.has(item.task.id), nextRefreshInMs: item.nextRefreshInMs })),
      )

      const changed = updates.filter((u) => u.update.statusChanged)
      if (changed.length > 0) {
        const viewById = new Map(views.map((v) => [v.id, toTask(v)]))
        const payloads = changed.map((u) => JSON.stringify(u.item.notification(viewById.get(u.item.task.id)!, u.previous)))
        await tx.query(
          `INSERT INTO webhook_deliveries (task_id, webhook_id, payload, status, next_attempt_at)
           SELECT task_id, webhook_id, payload, 'pending', now()
             FROM unnest($1::bigint[], $2::text[], $3::json[]) AS d (task_id, webhook_id, payload)`,
          [changed.map((u) => u.item.task.id), changed.map(() => `msg_${randomBytes(16).toString('hex')}`), payloads],
          'refresh_insert_deliveries',
        )
      }
      const outcomes = new Map(updates.map(({ item, update }) => [item, { applied: true, update, notified: update.statusChanged } as const]))
      return items.map((item) => outcomes.get(item) ?? { applied: false })
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

/** Inserts the events of all `items` that are not stored yet; the number of new ones per task. */
async function insertEvents(tx: Queryable, items: ApplyItem[]): Promise<Map<number, number>> {
  const events = items.flatMap((item) => item.events.map((event) => ({ taskId: item.task.id, event })))
  if (events.length === 0) return new Map()
  const column = <K extends keyof CarrierEvent>(key: K) => events.map((e) => e.event[key])
  const { rows } = await tx.query<{ task_id: number; count: number }>(
    `WITH inserted AS (
       INSERT INTO tracking_events (task_id, event_key, event_time, event_code, status, status_info, description,
                                    exception_description, country, state, city, postal_code, address)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[],
                            $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[])
       ON CONFLICT (task_id, event_key) DO NOTHING
       RETURNING task_id
     )
     SELECT task_id, count(*)::int AS count FROM inserted GROUP BY task_id`,
    [
      events.map((e) => e.taskId),
      column('key'),
      events.map((e) => e.event.eventTime.toISOString()),
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
    'refresh_insert_events',
  )
  return new Map(rows.map((r) => [r.task_id, r.count]))
}

/**
 * Writes the decided state of every task in one statement, and releases their leases. A task that
 * gained events gets its events view rebuilt from tracking_events, which already holds them.
 * Returns the tasks whose status changed as the query shows them (their webhook's payload), read
 * from the rows just written.
 */
async function updateTasks(tx: Queryable, tasks: { id: number; update: TaskUpdate; gainedEvents: boolean; nextRefreshInMs: number }[]): Promise<TaskRow[]> {
  if (tasks.length === 0) return []
  const column = <T>(f: (t: (typeof tasks)[number]) => T) => tasks.map(f)
  const json = (address: object | undefined) => (address ? JSON.stringify(address) : null)
  const { rows } = await tx.query<TaskRow>(
    `WITH updated AS (
       UPDATE tracking_tasks t
          SET standard_status = u.standard_status,
              carrier_status = u.carrier_status,
              estimated_delivery_at = COALESCE(u.estimated_delivery_at, t.estimated_delivery_at),
              origin_address = COALESCE(u.origin_address, t.origin_address),
              destination_address = COALESCE(u.destination_address, t.destination_address),
              last_new_event_at = u.last_new_event_at,
              events_view = CASE WHEN u.gained_events THEN ${eventsViewOf('t.id')} ELSE t.events_view END,
              last_fetched_at = now(),
              refresh_failures = 0,
              next_refresh_at = CASE WHEN u.terminal THEN NULL ELSE now() + make_interval(secs => u.next_refresh_in_ms / 1000) END,
              refresh_lease_owner = NULL,
              refresh_lease_until = NULL,
              updated_at = now()
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::jsonb[], $6::jsonb[], $7::timestamptz[], $8::boolean[], $9::float8[], $10::boolean[], $11::boolean[])
              AS u (id, standard_status, carrier_status, estimated_delivery_at, origin_address, destination_address, last_new_event_at, terminal, next_refresh_in_ms, gained_events, status_changed)
        WHERE t.id = u.id
        RETURNING t.*, u.status_changed
       )
     SELECT ${TASK_VIEW_COLUMNS}, NULL::json AS latest_webhook FROM updated t WHERE t.status_changed`,
    [
      column((t) => t.id),
      column((t) => t.update.standardStatus),
      column((t) => t.update.carrierStatus),
      column((t) => t.update.estimatedDeliveryAt ?? null),
      column((t) => json(t.update.originAddress)),
      column((t) => json(t.update.destinationAddress)),
      column((t) => t.update.lastNewEventAt),
      column((t) => isTerminal(t.update.standardStatus)),
      column((t) => t.nextRefreshInMs),
      column((t) => t.gainedEvents),
      column((t) => t.update.statusChanged),
    ],
    'refresh_update_tasks',
  )
  return rows
}
