import { randomBytes } from 'node:crypto'
import type { Database, Queryable } from './database'
import { statementsOf } from './statements'
import { fromNow, heldTaskIds, stillClaimed } from './task-schedule.sql'

/**
 * The refresh scheduler's storage: each task's row of task_schedule (when it is due, its failures,
 * its last fetch) and each round's claim in refresh_claims. A claim writes no task: under its
 * carrier's advisory lock it picks the due tasks that no live claim holds and records their ids
 * under a lease token, in one row for the round. Other workers skip them until the round releases
 * its claim or its lease runs out (a crashed worker's tasks are simply due again then). A result
 * is applied, or a failure recorded, only while the claim's lease runs and the task is still due
 * when it was claimed (refresh-writes.ts): a stop, a refresh now or a delete in between wins.
 */

export interface ClaimedTask {
  id: number
  carrierCode: string
  trackingNumber: string
  /** Consecutive failed fetches before this claim. */
  failures: number
  /** The due time the claim found, exactly as stored (text): the task's own lease. */
  dueAt: string
  /** The claim of the round: released when the round ends. */
  leaseToken: string
  /** The fingerprint of the answer the task's state was last decided from; null before its first. */
  fingerprint: string | null
  /** Since when the carrier has shown nothing new for the task (its expiry counts from then). */
  quietSince: Date
}

interface ClaimRow {
  id: number
  carrier_code: string
  tracking_number: string
  refresh_failures: number
  due_at: string
  answer_fingerprint: string | null
  quiet_since: Date
}

const claimedTask = (r: ClaimRow, leaseToken: string): ClaimedTask => ({
  id: r.id,
  carrierCode: r.carrier_code,
  trackingNumber: r.tracking_number,
  failures: r.refresh_failures,
  dueAt: r.due_at,
  leaseToken,
  fingerprint: r.answer_fingerprint,
  quietSince: r.quiet_since,
})

/**
 * Claims up to `limit` due tasks of a channel (a carrier, or the carriers of a route), oldest due
 * first, for `leaseMs`. Two statements of one transaction: the second must see the claims committed
 * while the first waited for the lock.
 */
async function claimDue(
  tx: Queryable,
  channel: string,
  carrierCodes: readonly string[],
  limit: number,
  leaseMs: number,
  leaseToken: string,
): Promise<ClaimedTask[]> {
  await tx.query(REFRESH_CLAIM_LOCK, [channel], 'refresh_claim_lock')
  const { rows } = await tx.query<ClaimRow>(REFRESH_CLAIM, [channel, limit, leaseMs, leaseToken, carrierCodes])
  return rows.map((r) => claimedTask(r, leaseToken))
}

/** Claims the active tasks among `taskIds` that no live claim holds, for `leaseMs` (a push's tasks). */
async function claimTasks(tx: Queryable, channel: string, taskIds: readonly number[], leaseMs: number, leaseToken: string): Promise<ClaimedTask[]> {
  await tx.query(REFRESH_CLAIM_LOCK, [channel], 'refresh_claim_lock')
  const { rows } = await tx.query<ClaimRow>(REFRESH_CLAIM_TASKS, [channel, taskIds, leaseMs, leaseToken])
  return rows.map((r) => claimedTask(r, leaseToken))
}

export class RefreshRepository {
  private claims = 0
  private readonly workerId = randomBytes(6).toString('hex')

  constructor(private readonly db: Database) {}

  /**
   * Claims up to `limit` due tasks of a channel (the carrier `channel`, or a route's `carrierCodes`),
   * oldest due first, under one new lease token, in a transaction of its own (the caller's unit of
   * work): its two statements must share it.
   */
  claimDue(tx: Queryable, channel: string, carrierCodes: readonly string[], limit: number, leaseMs: number): Promise<ClaimedTask[]> {
    return claimDue(tx, channel, carrierCodes, limit, leaseMs, `${this.workerId}:${++this.claims}`)
  }

  /**
   * Claims the active tasks among `taskIds` that no live claim of `channel` holds, due or not,
   * under one new lease token (a push's tasks: applied through the refresh's own path). A task a
   * poll holds is left out: the push is applied once that claim ends.
   */
  claimTasks(tx: Queryable, channel: string, taskIds: readonly number[], leaseMs: number): Promise<ClaimedTask[]> {
    return claimTasks(tx, channel, taskIds, leaseMs, `${this.workerId}:${++this.claims}`)
  }

  /**
   * Ends a round's claim: its tasks are claimable again (those it fetched are due later now). The
   * tasks in `unasked` (the carrier's circuit opened before their request went) stay claimed until
   * the lease lapses, as a crashed worker's would.
   */
  async releaseClaim(leaseToken: string, unasked: number[]): Promise<void> {
    if (unasked.length === 0) await this.db.query(REFRESH_RELEASE_CLAIM, [leaseToken], 'refresh_release_claim')
    else await this.db.query(REFRESH_KEEP_CLAIM, [leaseToken, unasked], 'refresh_keep_claim')
  }

  /**
   * A failed fetch changes nothing on the task: only its schedule moves, to when the caller says
   * it is due again (domain/refresh-schedule.ts), and its count of consecutive failures grows.
   */
  async releaseFailed(tasks: { task: ClaimedTask; retryInMs: number }[]): Promise<void> {
    if (tasks.length === 0) return
    await this.db.query(
      REFRESH_RELEASE_FAILED,
      [tasks.map((f) => f.task.id), tasks.map((f) => f.task.dueAt), tasks.map((f) => f.task.leaseToken), tasks.map((f) => f.retryInMs)],
      'refresh_release_failed',
    )
  }

  /**
   * Milliseconds until `count` of a channel's unclaimed tasks are due (when its count-th next task
   * is), as the database's clock counts them; negative when they are due already, null when fewer
   * are scheduled. Reads the index the claim reads.
   */
  async dueInMs(channel: string, carrierCodes: readonly string[], count: number): Promise<number | null> {
    const [row] = await this.db.query<{ in_ms: number }>(REFRESH_DUE_IN, [channel, count - 1, carrierCodes])
    return row ? row.in_ms : null
  }

  /** Seconds the most overdue active task of these carriers has been waiting (0 when none is due). */
  async refreshLagSeconds(carrierCodes: readonly string[]): Promise<number> {
    // The oldest due task of each carrier, each one index probe.
    const [row] = await this.db.query<{ lag: number | null }>(REFRESH_LAG, [carrierCodes])
    return Math.max(0, row?.lag ?? 0)
  }

  /** How many tasks of each carrier are being fetched (scheduled, not stopped or finished). */
  async activeTasksByCarrier(): Promise<Record<string, number>> {
    const rows = await this.db.query<{ carrier_code: string; tasks: number }>(REFRESH_ACTIVE_BY_CARRIER)
    return Object.fromEntries(rows.map((r) => [r.carrier_code, r.tasks]))
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
// Claims of one carrier are made one at a time (a few milliseconds each); an advisory lock writes
// nothing, where a row lock on each claimed task would.
const REFRESH_CLAIM_LOCK = sql('refresh_claim_lock', `SELECT pg_advisory_xact_lock(hashtextextended('refresh_claim ' || $1::text, 0))`)
/**
 * A claim's statement: drop the channel's lapsed claims, pick tasks no live claim holds (`picked`:
 * their ids with their carrier, due time and failures), record them under the lease token ($4,
 * for $3 ms), and read what the apply needs of each.
 */
const claimStatement = (picked: string) => `WITH lapsed AS (
     DELETE FROM refresh_claims WHERE carrier_code = $1 AND lease_until <= now()
   ),
   held AS (
     ${heldTaskIds('$1')}
   ),
   picked AS (${picked}
   ),
   claimed AS (
     INSERT INTO refresh_claims (lease_token, carrier_code, task_ids, lease_until)
     SELECT $4, $1, array_agg(task_id), ${fromNow('$3::float8')} FROM picked HAVING count(*) > 0
   )
   SELECT p.task_id AS id, p.carrier_code, t.tracking_number, p.refresh_failures, p.next_refresh_at::text AS due_at, t.answer_fingerprint, t.quiet_since
     FROM picked p
     -- Each claimed task by its key (OFFSET 0 keeps it a lookup per row): joined, a small table
     -- was read whole for every claim.
     CROSS JOIN LATERAL (
       SELECT tracking_number, answer_fingerprint, COALESCE(last_new_event_at, created_at) AS quiet_since
         FROM tracking_tasks WHERE id = p.task_id OFFSET 0) t
    ORDER BY p.next_refresh_at`
const REFRESH_CLAIM = sql(
  'refresh_claim',
  claimStatement(`
     -- Each carrier's oldest due tasks from its own part of the due index (a route's channel
     -- fetches several carriers, $5), then the oldest $2 of them all.
     SELECT s.task_id, s.carrier_code, s.next_refresh_at, s.refresh_failures
       FROM unnest($5::text[]) AS c (carrier_code)
      CROSS JOIN LATERAL (
        SELECT d.task_id, d.carrier_code, d.next_refresh_at, d.refresh_failures
          FROM task_schedule d
         WHERE d.carrier_code = c.carrier_code
           AND d.next_refresh_at <= now()
           AND d.task_id NOT IN (SELECT task_id FROM held)
         ORDER BY d.next_refresh_at
         LIMIT $2) s
      ORDER BY s.next_refresh_at
      LIMIT $2`),
)
// A push's tasks ($2), due or not, as long as they are active and no live claim holds them.
const REFRESH_CLAIM_TASKS = sql(
  'refresh_claim_tasks',
  claimStatement(`
     SELECT s.task_id, s.carrier_code, s.next_refresh_at, s.refresh_failures
       FROM task_schedule s
      WHERE s.task_id = ANY($2::bigint[])
        AND s.next_refresh_at IS NOT NULL
        AND s.task_id NOT IN (SELECT task_id FROM held)`),
)
const REFRESH_RELEASE_CLAIM = sql('refresh_release_claim', `DELETE FROM refresh_claims WHERE lease_token = $1`)
const REFRESH_KEEP_CLAIM = sql('refresh_keep_claim', `UPDATE refresh_claims SET task_ids = $2::bigint[] WHERE lease_token = $1`)
const REFRESH_RELEASE_FAILED = sql(
  'refresh_release_failed',
  `UPDATE task_schedule s
      SET refresh_failures = s.refresh_failures + 1,
          -- waiting since the due time this fetch missed, however far backoffs move it
          due_since = COALESCE(s.due_since, s.next_refresh_at),
          next_refresh_at = ${fromNow('f.retry_in_ms')}
     FROM unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::float8[]) AS f (task_id, due_at, lease_token, retry_in_ms)
    WHERE s.task_id = f.task_id
      AND ${stillClaimed('s', 'f')}`,
)
// The schedule's due index holds exactly the active tasks: counted from it alone.
const REFRESH_ACTIVE_BY_CARRIER = sql(
  'refresh_active_by_carrier',
  `SELECT carrier_code, count(*)::int AS tasks FROM task_schedule WHERE next_refresh_at IS NOT NULL GROUP BY carrier_code`,
)
const REFRESH_DUE_IN = sql(
  'refresh_due_in',
  `SELECT EXTRACT(EPOCH FROM s.next_refresh_at - now())::float8 * 1000 AS in_ms
     FROM unnest($3::text[]) AS c (carrier_code)
    CROSS JOIN LATERAL (
      SELECT d.next_refresh_at FROM task_schedule d
       WHERE d.carrier_code = c.carrier_code AND d.next_refresh_at IS NOT NULL
         AND d.task_id NOT IN (${heldTaskIds('$1')})
       ORDER BY d.next_refresh_at
       LIMIT $2 + 1) s
    ORDER BY s.next_refresh_at
   OFFSET $2 LIMIT 1`,
)
const REFRESH_LAG = sql(
  'refresh_lag',
  `SELECT EXTRACT(EPOCH FROM now() - min(oldest.next_refresh_at))::float8 AS lag
     FROM unnest($1::text[]) AS c (carrier_code)
     CROSS JOIN LATERAL (
       SELECT s.next_refresh_at FROM task_schedule s
        WHERE s.carrier_code = c.carrier_code AND s.next_refresh_at <= now()
        ORDER BY s.next_refresh_at
        LIMIT 1) AS oldest`,
)
