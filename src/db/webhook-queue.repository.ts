import { randomBytes } from 'node:crypto'
import type { WebhookStatus } from '../domain/statuses'
import type { AttemptVerdict } from '../domain/webhook-schedule'
import type { Queryable } from './database'
import { Coalescer } from './coalescer'
import type { Database } from './database'
import { statementsOf } from './statements'

/**
 * The webhook outbox's queue side. Claiming marks deliveries `sending` with a lease token; only
 * the holder of the token completes them. A lease that runs out (the worker died mid-attempt)
 * counts as a failed attempt and puts the delivery back on the schedule: nothing stays `sending`.
 * See domain/webhook-schedule.ts for the states.
 */

export interface ClaimedDelivery {
  id: number
  taskId: number
  webhookId: string
  /** The body exactly as stored: it is sent and signed byte for byte. */
  payload: string
  /** Where it goes: the task's current callbackUrl, or its endpoint's URL. */
  url: string
  /** The URL's host, as the claim grouped it. */
  host: string
  /** Attempts before this one, in all and in the current cycle. */
  attemptCount: number
  attemptsInCycle: number
  /** The signing secrets (the user's for a callback, the endpoint's for an endpoint): the current one, and the previous one during a rotation. */
  secrets: string[]
  leaseToken: string
}

export interface CompletedAttempt {
  status: Exclude<WebhookStatus, 'pending' | 'sending'>
  startedAt: Date
  nextAttemptAt: Date | null
  statusCode: number
  error: string
  durationMs: number
  responseExcerpt: string
}

interface Completion {
  delivery: ClaimedDelivery
  attempt: CompletedAttempt
}

// Where delivery d goes: its endpoint's URL, or its task's current callbackUrl.
const TARGET_URL = `COALESCE((SELECT e.url FROM webhook_endpoints e WHERE e.id = d.endpoint_id),
                             (SELECT t.callback_url FROM tracking_tasks t WHERE t.id = d.task_id))`
// The host part of a URL, for per-host concurrency (userinfo and port dropped).
const hostOf = (url: string) => `lower(substring(${url} from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(\\[[0-9A-Fa-f:.]*\\]|[^:/?#]*)'))`

const LEASE_LOST = 'attempt interrupted: the worker lost its lease'

/** PostgreSQL text cannot hold NUL. */
const clean = (text: string) => text.replaceAll('\u0000', '')

export class WebhookQueueRepository {
  private claims = 0
  private readonly workerId = randomBytes(6).toString('hex')

  private readonly completions = new Coalescer<Completion, boolean>({
    maxInFlight: 2,
    maxGroup: 500,
    keys: (c) => [String(c.delivery.id)],
    run: (completions) => this.completeMany(completions),
    runOne: async (c) => (await this.completeMany([c]))[0]!,
  })

  constructor(private readonly db: Database) {}

  /**
   * Claims up to `limit` due deliveries, oldest due first, at most `room` per host (the hosts
   * listed there: what they have room for in this process; any other host: `otherHostRoom`), none
   * for a host with no room.
   */
  async claim(limit: number, leaseMs: number, otherHostRoom: number, room: ReadonlyMap<string, number> = new Map()): Promise<ClaimedDelivery[]> {
    const full = [...room].filter(([, n]) => n <= 0).map(([host]) => host)
    const roomy = [...room].filter(([, n]) => n > 0)
    // The due rows looked at (and locked while the claim picks among them): enough to fill every
    // host's room a few times over, no more: rows locked here are skipped by other workers' claims.
    const takeable = Math.min(limit, roomy.reduce((sum, [, n]) => sum + n, 0) + otherHostRoom * 4)
    const leaseToken = `${this.workerId}:${++this.claims}`
    const rows = await this.db.query<{
      id: number
      task_id: number
      webhook_id: string
      payload: string
      url: string
      host: string
      attempt_count: number
      cycle_start_attempt: number
      secret: string
      previous_secret: string | null
    }>(
      // The due rows are read in due order, from the outbox alone. The planner may read every due
      // row and sort them (statistics lag behind a burst), so what a row costs before the sort is
      // kept small: its target and its host (a regular expression) are looked up only when some
      // host has no room, and otherwise for the rows taken; secrets for the picked ones. A
      // callback delivery is signed with its user's secrets, an endpoint's with the endpoint's;
      // a disabled endpoint's deliveries wait (disabling fails the pending ones).
      WEBHOOK_CLAIM,
      [limit, leaseMs, otherHostRoom, full, leaseToken, roomy.map(([host]) => host), roomy.map(([, n]) => n), takeable],
    )
    return rows.map((r) => ({
      id: r.id,
      taskId: r.task_id,
      webhookId: r.webhook_id,
      payload: r.payload,
      url: r.url,
      host: r.host ?? '',
      attemptCount: r.attempt_count,
      attemptsInCycle: r.attempt_count - r.cycle_start_attempt,
      secrets: r.previous_secret ? [r.secret, r.previous_secret] : [r.secret],
      leaseToken,
    }))
  }

  /**
   * Gives a claimed delivery back unattempted (its host is paused, or has no room left after its
   * limit shrank): due again at `dueAt`, no attempt counted. False when the lease was lost.
   */
  async release(delivery: ClaimedDelivery, dueAt: Date): Promise<boolean> {
    const rows = await this.db.query(WEBHOOK_RELEASE, [delivery.id, delivery.leaseToken, dueAt])
    return rows.length === 1
  }

  /**
   * Records an attempt and its verdict; false when the lease was lost (another worker has it).
   * Attempts finishing together are recorded together, in one statement (see coalescer.ts).
   */
  complete(delivery: ClaimedDelivery, attempt: CompletedAttempt): Promise<boolean> {
    return this.completions.submit({ delivery, attempt })
  }

  private async completeMany(completions: Completion[]): Promise<boolean[]> {
    const column = <T>(f: (c: Completion) => T) => completions.map(f)
    const rows = await this.db.query<{ delivery_id: number }>(
      WEBHOOK_COMPLETE_MANY,
      [
        column((c) => c.delivery.id),
        column((c) => c.delivery.leaseToken),
        column((c) => c.attempt.status),
        column((c) => c.attempt.startedAt),
        column((c) => c.attempt.nextAttemptAt),
        column((c) => c.attempt.statusCode),
        column((c) => clean(c.attempt.error)),
        column((c) => c.attempt.durationMs),
        column((c) => clean(c.attempt.responseExcerpt)),
      ],
      'webhook_complete_many',
    )
    const completed = new Set(rows.map((r) => r.delivery_id))
    return completions.map((c) => completed.has(c.delivery.id))
  }

  /** Deliveries waiting or in flight, by status, for the queue-depth gauge. */
  async queueDepth(): Promise<Record<'pending' | 'retry_wait' | 'sending', number>> {
    const rows = await this.db.query<{ status: 'pending' | 'retry_wait' | 'sending'; n: number }>(WEBHOOK_QUEUE_DEPTH)
    const depth = { pending: 0, retry_wait: 0, sending: 0 }
    for (const row of rows) depth[row.status] = row.n
    return depth
  }
}

/**
 * Deliveries whose lease ran out mid-attempt (the worker died, or lost the database), oldest
 * first, locked for this transaction; each with the place its lost attempt takes in its cycle.
 */
export async function lockExpiredLeases(tx: Queryable, limit: number): Promise<{ id: number; attemptInCycle: number }[]> {
  const { rows } = await tx.query<{ id: number; attempt_in_cycle: number }>(WEBHOOK_LOCK_EXPIRED, [limit])
  return rows.map((row) => ({ id: row.id, attemptInCycle: row.attempt_in_cycle }))
}

/** Records each expired lease's attempt as failed without an answer, with the verdict the schedule gave it. */
export async function recordLostAttempts(tx: Queryable, lost: { id: number; verdict: AttemptVerdict }[]): Promise<void> {
  if (lost.length === 0) return
  await tx.query(WEBHOOK_RECORD_LOST, [
    lost.map((l) => l.id),
    lost.map((l) => l.verdict.status),
    lost.map((l) => (l.verdict.status === 'retry_wait' ? l.verdict.nextAttemptAt : null)),
    LEASE_LOST,
  ])
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const WEBHOOK_CLAIM = sql(
  'webhook_claim',
  `WITH due AS (
     SELECT d.id, d.task_id, d.user_id, d.endpoint_id, d.next_attempt_at
       FROM webhook_deliveries d
      WHERE d.status IN ('pending', 'retry_wait')
        AND d.next_attempt_at <= now()
        AND (d.endpoint_id IS NULL OR EXISTS (SELECT FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.enabled))
        AND (cardinality($4::text[]) = 0 OR ${hostOf(TARGET_URL)} <> ALL($4::text[]))
      ORDER BY d.next_attempt_at
      LIMIT $8
      FOR UPDATE SKIP LOCKED
   ),
   hosted AS (
     SELECT d.id, d.user_id, d.endpoint_id, d.next_attempt_at, target.url, ${hostOf('target.url')} AS host
       FROM due d
       CROSS JOIN LATERAL (SELECT ${TARGET_URL} AS url) target
   ),
   picked AS (
     SELECT ranked.*
       FROM (SELECT *, row_number() OVER (PARTITION BY host ORDER BY next_attempt_at) AS nth FROM hosted) ranked
       LEFT JOIN unnest($6::text[], $7::int[]) AS r (host, room) ON r.host = ranked.host
      WHERE ranked.nth <= COALESCE(r.room, $3)
      ORDER BY ranked.next_attempt_at
      LIMIT $1
   ),
   signed AS (
     SELECT p.id, p.url, p.host, COALESCE(e.secret, u.webhook_secret) AS secret,
            CASE WHEN e.id IS NOT NULL THEN CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END
                 WHEN u.previous_webhook_secret_expires_at > now() THEN u.previous_webhook_secret END AS previous_secret
       FROM picked p
       JOIN api_users u ON u.id = p.user_id
       LEFT JOIN webhook_endpoints e ON e.id = p.endpoint_id
   )
   UPDATE webhook_deliveries d
      SET status = 'sending',
          lease_owner = $5,
          lease_until = now() + make_interval(secs => $2::float8 / 1000),
          attempt_started_at = now(),
          updated_at = now()
     FROM signed p
    WHERE d.id = p.id
    RETURNING d.id, d.task_id, d.webhook_id, d.payload::text AS payload, p.url, p.host, d.attempt_count,
              d.cycle_start_attempt, p.secret, p.previous_secret`,
)
const WEBHOOK_RELEASE = sql(
  'webhook_release',
  `UPDATE webhook_deliveries
      SET status = CASE WHEN attempt_count = cycle_start_attempt THEN 'pending' ELSE 'retry_wait' END,
          next_attempt_at = $3, lease_owner = NULL, lease_until = NULL, updated_at = now()
    WHERE id = $1 AND lease_owner = $2 AND status = 'sending'
    RETURNING id`,
)
const WEBHOOK_COMPLETE_MANY = sql(
  'webhook_complete_many',
  `WITH input AS (
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::text[], $8::int[], $9::text[])
              AS i (id, lease_owner, status, started_at, next_attempt_at, status_code, error, duration_ms, excerpt)
   ),
   done AS (
     UPDATE webhook_deliveries d
        SET status = i.status, attempt_count = d.attempt_count + 1, last_attempt_at = i.started_at,
            next_attempt_at = i.next_attempt_at, response_status_code = i.status_code, error_message = i.error,
            lease_owner = NULL, lease_until = NULL, attempt_started_at = NULL, updated_at = now()
       FROM input i
      WHERE d.id = i.id AND d.lease_owner = i.lease_owner AND d.status = 'sending'
      RETURNING d.id, d.attempt_count
   )
   INSERT INTO webhook_attempts (delivery_id, attempt_number, started_at, duration_ms, response_status_code, error_message, response_body_excerpt)
   SELECT done.id, done.attempt_count, i.started_at, i.duration_ms, i.status_code, i.error, i.excerpt
     FROM done JOIN input i ON i.id = done.id
   RETURNING delivery_id`,
)
const WEBHOOK_QUEUE_DEPTH = sql(
  'webhook_queue_depth',
  `SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE status IN ('pending', 'retry_wait', 'sending') GROUP BY status`,
)
const WEBHOOK_LOCK_EXPIRED = sql(
  'webhook_lock_expired',
  `SELECT id, attempt_count + 1 - cycle_start_attempt AS attempt_in_cycle
     FROM webhook_deliveries
    WHERE status = 'sending' AND lease_until < now()
    ORDER BY lease_until
    LIMIT $1
    FOR UPDATE SKIP LOCKED`,
)
const WEBHOOK_RECORD_LOST = sql(
  'webhook_record_lost',
  `WITH reaped AS (
     UPDATE webhook_deliveries d
        SET attempt_count = d.attempt_count + 1,
            last_attempt_at = COALESCE(d.attempt_started_at, now()),
            response_status_code = 0,
            error_message = $4,
            status = v.status,
            next_attempt_at = v.next_attempt_at,
            lease_owner = NULL, lease_until = NULL, attempt_started_at = NULL, updated_at = now()
       FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS v (id, status, next_attempt_at)
      WHERE d.id = v.id
      RETURNING d.id, d.attempt_count, d.last_attempt_at
   )
   INSERT INTO webhook_attempts (delivery_id, attempt_number, started_at, duration_ms, error_message)
   SELECT id, attempt_count, last_attempt_at, (EXTRACT(EPOCH FROM now() - last_attempt_at) * 1000)::int, $4
     FROM reaped
   ON CONFLICT (delivery_id, attempt_number) DO NOTHING`,
)
