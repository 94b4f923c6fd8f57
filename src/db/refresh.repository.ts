import { randomBytes } from 'node:crypto'
import type { Database } from './database'
import { statementsOf } from './statements'

/**
 * The refresh scheduler's storage. A claim moves a due task's next_refresh_at forward by the
 * lease and stamps it with a lease token: other workers skip it (SKIP LOCKED while the claim
 * commits, then simply not due), and if the claimer dies the task is due again when the lease
 * runs out. Only the holder of the token may apply a result (refresh-writes.ts) or release the task.
 */

export interface ClaimedTask {
  id: number
  carrierCode: string
  trackingNumber: string
  /** Consecutive failed fetches before this claim. */
  failures: number
  leaseToken: string
}

export class RefreshRepository {
  private claims = 0
  private readonly workerId = randomBytes(6).toString('hex')

  constructor(private readonly db: Database) {}

  /** Claims up to `limit` due tasks of one carrier, oldest due first. */
  async claimDue(carrierCode: string, limit: number, leaseMs: number): Promise<ClaimedTask[]> {
    const leaseToken = `${this.workerId}:${++this.claims}`
    const rows = await this.db.query<{ id: number; carrier_code: string; tracking_number: string; refresh_failures: number }>(REFRESH_CLAIM, [
      carrierCode,
      limit,
      leaseMs,
      leaseToken,
    ])
    return rows.map((r) => ({ id: r.id, carrierCode: r.carrier_code, trackingNumber: r.tracking_number, failures: r.refresh_failures, leaseToken }))
  }

  /**
   * A failed fetch changes nothing on the task: only its schedule moves, to when the caller says
   * it is due again (domain/refresh-schedule.ts), and its count of consecutive failures grows.
   */
  async releaseFailed(tasks: { task: ClaimedTask; retryInMs: number }[]): Promise<void> {
    if (tasks.length === 0) return
    await this.db.query(REFRESH_RELEASE_FAILED, [tasks.map((f) => f.task.id), tasks.map((f) => f.task.leaseToken), tasks.map((f) => f.retryInMs)])
  }

  /**
   * Milliseconds until `count` of a carrier's tasks are due (when its count-th next task is), as
   * the database's clock counts them; negative when they are due already, null when fewer are
   * scheduled. Tasks under a lease count at their lease's end. Reads the index the claim reads.
   */
  async dueInMs(carrierCode: string, count: number): Promise<number | null> {
    const [row] = await this.db.query<{ in_ms: number }>(REFRESH_DUE_IN, [carrierCode, count - 1])
    return row ? row.in_ms : null
  }

  /** Seconds the most overdue active task of these carriers has been waiting (0 when none is due). */
  async refreshLagSeconds(carrierCodes: readonly string[]): Promise<number> {
    // The oldest due task of each carrier, each one index probe.
    const [row] = await this.db.query<{ lag: number | null }>(REFRESH_LAG, [carrierCodes])
    return Math.max(0, row?.lag ?? 0)
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const REFRESH_CLAIM = sql(
  'refresh_claim',
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
)
const REFRESH_RELEASE_FAILED = sql(
  'refresh_release_failed',
  `UPDATE tracking_tasks t
      SET refresh_failures = t.refresh_failures + 1,
          next_refresh_at = now() + make_interval(secs => f.retry_in_ms / 1000),
          refresh_lease_owner = NULL,
          refresh_lease_until = NULL
     FROM unnest($1::bigint[], $2::text[], $3::float8[]) AS f (id, lease_owner, retry_in_ms)
    WHERE t.id = f.id AND t.refresh_lease_owner = f.lease_owner`,
)
const REFRESH_DUE_IN = sql(
  'refresh_due_in',
  `SELECT EXTRACT(EPOCH FROM next_refresh_at - now())::float8 * 1000 AS in_ms
     FROM tracking_tasks
    WHERE carrier_code = $1 AND next_refresh_at IS NOT NULL
    ORDER BY next_refresh_at
   OFFSET $2 LIMIT 1`,
)
const REFRESH_LAG = sql(
  'refresh_lag',
  `SELECT EXTRACT(EPOCH FROM now() - min(oldest.next_refresh_at))::float8 AS lag
     FROM unnest($1::text[]) AS c (carrier_code)
     CROSS JOIN LATERAL (
       SELECT next_refresh_at FROM tracking_tasks t
        WHERE t.carrier_code = c.carrier_code AND t.next_refresh_at <= now()
        ORDER BY t.next_refresh_at
        LIMIT 1) AS oldest`,
)
