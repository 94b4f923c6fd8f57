import { randomBytes } from 'node:crypto'
import type { Milestone } from '../domain/milestones'
import type { StandardStatus } from '../domain/statuses'
import type { EndpointData, EndpointSubscription, PlannedDelivery, TaskChange } from '../domain/task-events'
import { eventToJson } from '../domain/task-json'
import type { CarrierEvent, TaskRefreshState, TaskUpdate } from '../domain/tracking-update'
import { Coalescer } from './coalescer'
import type { Database } from './database'
import { endpointsOf, insertDeliveries, insertEvents, updateTasks, type DeliveryToInsert } from './refresh-writes'
import { toTaskView } from './task.repository'

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
  /** Consecutive failed fetches before this claim. */
  failures: number
  leaseToken: string
}

export interface ApplyInput {
  events: CarrierEvent[]
  /** Decides the task's new state once the number of genuinely new events is known. */
  decide(state: TaskRefreshState, newEventCount: number): TaskUpdate
  /** When the task is due next if it stays active. */
  nextRefreshInMs: number
  /** The deliveries a change makes, given the enabled endpoints of the task's user (domain/task-events.ts). */
  deliveries(change: TaskChange, endpoints: readonly EndpointSubscription[]): PlannedDelivery[]
}

/** One task's successful fetch, as `apply` takes it. */
export interface ApplyItem extends ApplyInput {
  task: ClaimedTask
}

/** `notified`: deliveries made for the change (to the callback or to endpoints). */
export type ApplyOutcome = { applied: false } | { applied: true; update: TaskUpdate; notified: number }

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
      // A few transactions side by side.
      maxInFlight: 4,
      maxGroup: 20,
      run: async (answers) => {
        const outcomes = await this.applyNow(answers.flat())
        let from = 0
        return answers.map((items) => outcomes.slice(from, (from += items.length)))
      },
      runOne: (items) => this.applyNow(items),
    })
  }

  /** Claims up to `limit` due tasks of one carrier, oldest due first. */
  async claimDue(carrierCode: string, limit: number, leaseMs: number): Promise<ClaimedTask[]> {
    const leaseToken = `${this.workerId}:${++this.claims}`
    const rows = await this.db.query<{ id: number; carrier_code: string; tracking_number: string; refresh_failures: number }>(
      `UPDATE tracking_tasks t
          SET next_refresh_at = now() + make_interval(secs => $3::float8 / 1000),
              refresh_lease_until = now() + make_interval(secs => $3::float8 / 1000),
              refresh_lease_owner = $4
        WHERE t.id IN (
          SELECT id FROM tracking_tasks
           WHERE carrier_code = $1
             AND next_refresh_at <= now()
           ORDER BY next_refresh_at
           LIMIT $2
           FOR UPDATE SKIP LOCKED)
        RETURNING t.id, t.carrier_code, t.tracking_number, t.refresh_failures`,
      [carrierCode, limit, leaseMs, leaseToken],
    )
    return rows.map((r) => ({ id: r.id, carrierCode: r.carrier_code, trackingNumber: r.tracking_number, failures: r.refresh_failures, leaseToken }))
  }

  /**
   * A failed fetch changes nothing on the task: only its schedule moves, to when the caller says
   * it is due again (domain/refresh-schedule.ts), and its count of consecutive failures grows.
   */
  async releaseFailed(tasks: { task: ClaimedTask; retryInMs: number }[]): Promise<void> {
    if (tasks.length === 0) return
    await this.db.query(
      `UPDATE tracking_tasks t
          SET refresh_failures = t.refresh_failures + 1,
              next_refresh_at = now() + make_interval(secs => f.retry_in_ms / 1000),
              refresh_lease_owner = NULL,
              refresh_lease_until = NULL
         FROM unnest($1::bigint[], $2::text[], $3::float8[]) AS f (id, lease_owner, retry_in_ms)
        WHERE t.id = f.id AND t.refresh_lease_owner = f.lease_owner`,
      [tasks.map((f) => f.task.id), tasks.map((f) => f.task.leaseToken), tasks.map((f) => f.retryInMs)],
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
      const { rows: held } = await tx.query<HeldTask>(
        `SELECT t.id, t.user_id, t.standard_status, t.milestone, t.carrier_status, t.estimated_delivery_at, t.created_at, t.last_new_event_at
           FROM tracking_tasks t
           JOIN unnest($1::bigint[], $2::text[]) AS c (id, lease_owner) ON c.id = t.id AND c.lease_owner = t.refresh_lease_owner
          ORDER BY t.id
            FOR UPDATE OF t`,
        [items.map((i) => i.task.id), items.map((i) => i.task.leaseToken)],
        'refresh_lock',
      )
      const current = new Map(held.map((row) => [row.id, row]))
      const mine = items.filter((i) => current.has(i.task.id))
      const newEvents = await insertEvents(
        tx,
        mine.map((item) => ({ taskId: item.task.id, events: item.events })),
      )
      const decided = mine.map((item) => {
        const row = current.get(item.task.id)!
        const previous = { standardStatus: row.standard_status, carrierStatus: row.carrier_status, milestone: row.milestone, estimatedDeliveryAt: row.estimated_delivery_at }
        const added = newEvents.get(item.task.id) ?? []
        const update = item.decide({ ...previous, createdAt: row.created_at, lastNewEventAt: row.last_new_event_at }, added.length)
        const tells = update.statusChanged || update.milestoneChanged || update.etaChanged || added.length > 0
        return { item, row, previous, update, added, tells }
      })
      // Endpoints are looked up only for the users with something to tell.
      const endpoints = await endpointsOf(
        tx,
        decided.filter((d) => d.tells).map((d) => d.row.user_id),
      )
      const written = await updateTasks(
        tx,
        decided.map(({ item, row, update, added, tells }) => ({
          id: item.task.id,
          update,
          gainedEvents: added.length > 0,
          nextRefreshInMs: item.nextRefreshInMs,
          tells,
          full: tells && endpoints.has(row.user_id),
        })),
      )
      const writtenById = new Map(written.map((row) => [row.id, row]))
      const deliveries: DeliveryToInsert[] = []
      const made = new Map<ApplyItem, number>()
      for (const { item, row, previous, update, added, tells } of decided) {
        const after = writtenById.get(item.task.id)
        if (!tells || !after) continue
        const userEndpoints = endpoints.get(row.user_id) ?? []
        const full = userEndpoints.length > 0 && after.document ? (JSON.parse(after.document) as EndpointData) : undefined
        // The new events as the full task writes them: only an endpoint reads them.
        const newEvents = full ? added.map((event) => ({ ...eventToJson(event), milestone: event.milestone })) : []
        const change: TaskChange = { previous, update, task: toTaskView(after), full, newEvents }
        const planned = item.deliveries(change, userEndpoints)
        made.set(item, planned.length)
        for (const delivery of planned) deliveries.push({ ...delivery, taskId: item.task.id, userId: row.user_id })
      }
      await insertDeliveries(tx, deliveries)
      const outcomes = new Map(decided.map(({ item, update }) => [item, { applied: true, update, notified: made.get(item) ?? 0 } as const]))
      return items.map((item) => outcomes.get(item) ?? { applied: false })
    })
  }

  /**
   * Milliseconds until `count` of a carrier's tasks are due (when its count-th next task is), as
   * the database's clock counts them; negative when they are due already, null when fewer are
   * scheduled. Tasks under a lease count at their lease's end. Reads the index the claim reads.
   */
  async dueInMs(carrierCode: string, count: number): Promise<number | null> {
    const [row] = await this.db.query<{ in_ms: number }>(
      `SELECT EXTRACT(EPOCH FROM next_refresh_at - now())::float8 * 1000 AS in_ms
         FROM tracking_tasks
        WHERE carrier_code = $1 AND next_refresh_at IS NOT NULL
        ORDER BY next_refresh_at
       OFFSET $2 LIMIT 1`,
      [carrierCode, count - 1],
    )
    return row ? row.in_ms : null
  }

  /** Seconds the most overdue active task of these carriers has been waiting (0 when none is due). */
  async refreshLagSeconds(carrierCodes: readonly string[]): Promise<number> {
    // The oldest due task of each carrier, each one index probe.
    const [row] = await this.db.query<{ lag: number | null }>(
      `SELECT EXTRACT(EPOCH FROM now() - min(oldest.next_refresh_at))::float8 AS lag
         FROM unnest($1::text[]) AS c (carrier_code)
         CROSS JOIN LATERAL (
           SELECT next_refresh_at FROM tracking_tasks t
            WHERE t.carrier_code = c.carrier_code AND t.next_refresh_at <= now()
            ORDER BY t.next_refresh_at
            LIMIT 1) AS oldest`,
      [carrierCodes],
    )
    return Math.max(0, row?.lag ?? 0)
  }
}

interface HeldTask {
  id: number
  user_id: number
  standard_status: StandardStatus
  milestone: Milestone
  carrier_status: string
  estimated_delivery_at: Date | null
  created_at: Date
  last_new_event_at: Date | null
}
