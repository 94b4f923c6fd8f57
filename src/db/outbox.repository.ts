import { randomBytes } from 'node:crypto'
import type { Channel, ChannelDetails, Outgoing } from '../domain/outbox'
import { providerRank, PROVIDER_STATUSES } from '../domain/sms-replies'
import type { WebhookStatus } from '../domain/statuses'
import type { AttemptVerdict } from '../domain/webhook-schedule'
import type { Queryable } from './database'
import { Coalescer } from './coalescer'
import type { Database } from './database'
import { CHANNEL_CLAIMS } from './outbox-channels.sql'
import { statementsOf } from './statements'

/**
 * The outbox's queue side, for every channel. Claiming marks deliveries `sending` with a lease
 * token; only the holder of the token completes them. A lease that runs out (the worker died
 * mid-attempt) counts as a failed attempt and puts the delivery back on the schedule: nothing
 * stays `sending`. See domain/webhook-schedule.ts for the states.
 */

/** A claimed delivery: what its sender needs (its address from outbox-targets.sql.ts), and its lease. */
export interface ClaimedDelivery<C extends Channel = Channel> extends Outgoing<C> {
  id: number
  taskId: number
  /** The key of its target's gate (a webhook's: the URL's host), as the claim grouped it. */
  gateKey: string
  /** Attempts before this one, in all and in the current cycle. */
  attemptCount: number
  attemptsInCycle: number
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
  /** The id the receiving side gave it (an SMS provider's), kept on the delivery. */
  providerId: string | null
}

interface Completion {
  delivery: ClaimedDelivery
  attempt: CompletedAttempt
}

const LEASE_LOST = 'attempt interrupted: the worker lost its lease'

/** PostgreSQL text cannot hold NUL. */
const clean = (text: string) => text.replaceAll('\u0000', '')

export class OutboxRepository {
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
   * Claims up to `limit` due deliveries of a channel, oldest due first, at most `room` per gate
   * (the gates listed there: what they have room for in this process; any other gate:
   * `otherRoom`), none for a gate with no room.
   */
  async claim<C extends Channel>(
    channel: C,
    limit: number,
    leaseMs: number,
    otherRoom: number,
    room: ReadonlyMap<string, number> = new Map(),
  ): Promise<ClaimedDelivery<C>[]> {
    const full = [...room].filter(([, n]) => n <= 0).map(([key]) => key)
    const roomy = [...room].filter(([, n]) => n > 0)
    // The due rows looked at (and locked while the claim picks among them): enough to fill every
    // gate's room a few times over, no more: rows locked here are skipped by other workers' claims.
    const takeable = Math.min(limit, roomy.reduce((sum, [, n]) => sum + n, 0) + otherRoom * 4)
    const leaseToken = `${this.workerId}:${++this.claims}`
    const claim = CLAIMS[channel]
    const rows = await this.db.query<{
      id: number
      task_id: number
      webhook_id: string
      payload: string
      address: string
      gate_key: string | null
      attempt_count: number
      cycle_start_attempt: number
    }>(claim.text, [limit, leaseMs, otherRoom, full, leaseToken, roomy.map(([key]) => key), roomy.map(([, n]) => n), takeable])
    return rows.map((r) => ({
      id: r.id,
      taskId: r.task_id,
      webhookId: r.webhook_id,
      payload: r.payload,
      address: r.address,
      gateKey: r.gate_key ?? '',
      attemptCount: r.attempt_count,
      attemptsInCycle: r.attempt_count - r.cycle_start_attempt,
      details: claim.details(r) as ChannelDetails[C],
      leaseToken,
    }))
  }

  /**
   * Gives a claimed delivery back unattempted (its host is paused, or has no room left after its
   * limit shrank): due again at `dueAt`, no attempt counted. False when the lease was lost.
   */
  async release(delivery: ClaimedDelivery, dueAt: Date): Promise<boolean> {
    const rows = await this.db.query(OUTBOX_RELEASE, [delivery.id, delivery.leaseToken, dueAt])
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
      OUTBOX_COMPLETE_MANY,
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
        column((c) => c.attempt.providerId),
      ],
      'outbox_complete_many',
    )
    const completed = new Set(rows.map((r) => r.delivery_id))
    return completions.map((c) => completed.has(c.delivery.id))
  }

  /**
   * What the provider reported of a message it took (an SMS's status callback), by the message's
   * id: kept when it is later in the message's life than what was kept (domain/sms-replies.ts; a
   * status of no known rank is not kept), and a message reported failed after it was sent is
   * failed, with `failure` as its error. False when no such message is known.
   */
  async providerReported(messageId: string, status: string, failure: string | null): Promise<boolean> {
    const rows = await this.db.query(OUTBOX_PROVIDER_REPORTED, [messageId, status, PROVIDER_STATUSES, PROVIDER_STATUSES.map(providerRank), failure])
    return rows.length === 1
  }

  /** A channel's deliveries waiting or in flight, by status, for the queue-depth gauge. */
  async queueDepth(channel: Channel): Promise<Record<'pending' | 'retry_wait' | 'sending', number>> {
    const rows = await this.db.query<{ status: 'pending' | 'retry_wait' | 'sending'; n: number }>(OUTBOX_QUEUE_DEPTH, [channel])
    const depth = { pending: 0, retry_wait: 0, sending: 0 }
    for (const row of rows) depth[row.status] = row.n
    return depth
  }
}

/**
 * A channel's deliveries whose lease ran out mid-attempt (the worker died, or lost the database),
 * oldest first, locked for this transaction; each with the place its lost attempt takes in its cycle.
 */
export async function lockExpiredLeases(tx: Queryable, channel: Channel, limit: number): Promise<{ id: number; attemptInCycle: number }[]> {
  const { rows } = await tx.query<{ id: number; attempt_in_cycle: number }>(OUTBOX_LOCK_EXPIRED, [channel, limit])
  return rows.map((row) => ({ id: row.id, attemptInCycle: row.attempt_in_cycle }))
}

/** Records each expired lease's attempt as failed without an answer, with the verdict the schedule gave it. */
export async function recordLostAttempts(tx: Queryable, lost: { id: number; verdict: AttemptVerdict }[]): Promise<void> {
  if (lost.length === 0) return
  await tx.query(OUTBOX_RECORD_LOST, [
    lost.map((l) => l.id),
    lost.map((l) => l.verdict.status),
    lost.map((l) => (l.verdict.status === 'retry_wait' ? l.verdict.nextAttemptAt : null)),
    LEASE_LOST,
  ])
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
// Each channel's claim: one text, its target's gate and the details its sender needs from CHANNEL_CLAIMS.
const CLAIMS = Object.fromEntries(
  Object.entries(CHANNEL_CLAIMS).map(([channel, claim]) => [channel, { text: sql(`outbox_claim_${channel}`, claim.text), details: claim.details }]),
) as Record<Channel, { text: string; details: (row: Record<string, unknown>) => unknown }>
const OUTBOX_RELEASE = sql(
  'outbox_release',
  `UPDATE deliveries
      SET status = CASE WHEN attempt_count = cycle_start_attempt THEN 'pending' ELSE 'retry_wait' END,
          next_attempt_at = $3, lease_owner = NULL, lease_until = NULL, updated_at = now()
    WHERE id = $1 AND lease_owner = $2 AND status = 'sending'
    RETURNING id`,
)
const OUTBOX_COMPLETE_MANY = sql(
  'outbox_complete_many',
  `WITH input AS (
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::int[], $7::text[], $8::int[], $9::text[], $10::text[])
              AS i (id, lease_owner, status, started_at, next_attempt_at, status_code, error, duration_ms, excerpt, provider_id)
   ),
   done AS (
     UPDATE deliveries d
        SET status = i.status, attempt_count = d.attempt_count + 1, last_attempt_at = i.started_at,
            next_attempt_at = i.next_attempt_at, response_status_code = i.status_code, error_message = i.error,
            provider_id = COALESCE(i.provider_id, d.provider_id),
            lease_owner = NULL, lease_until = NULL, attempt_started_at = NULL, updated_at = now()
       FROM input i
      WHERE d.id = i.id AND d.lease_owner = i.lease_owner AND d.status = 'sending'
      RETURNING d.id, d.attempt_count
   )
   INSERT INTO delivery_attempts (delivery_id, attempt_number, started_at, duration_ms, response_status_code, error_message, response_body_excerpt)
   SELECT done.id, done.attempt_count, i.started_at, i.duration_ms, i.status_code, i.error, i.excerpt
     FROM done JOIN input i ON i.id = done.id
   RETURNING delivery_id`,
)
const OUTBOX_PROVIDER_REPORTED = sql(
  'outbox_provider_reported',
  `WITH rank AS (SELECT status, rank FROM unnest($3::text[], $4::int[]) AS r (status, rank)),
   message AS (SELECT d.id, d.provider_status FROM deliveries d WHERE d.webhook_id = $1 AND d.channel = 'sms'),
   reported AS (
     UPDATE deliveries d
        SET provider_status = $2,
            status = CASE WHEN $5::text IS NOT NULL AND d.status = 'success' THEN 'failed' ELSE d.status END,
            error_message = CASE WHEN $5::text IS NOT NULL AND d.status = 'success' THEN $5 ELSE d.error_message END,
            updated_at = now()
       FROM message m
      WHERE d.id = m.id
        AND COALESCE((SELECT rank FROM rank WHERE rank.status = m.provider_status), 0) < (SELECT rank FROM rank WHERE rank.status = $2)
      RETURNING d.id
   )
   SELECT id FROM message`,
)
const OUTBOX_QUEUE_DEPTH = sql(
  'outbox_queue_depth',
  `SELECT status, count(*)::int AS n FROM deliveries WHERE channel = $1 AND status IN ('pending', 'retry_wait', 'sending') GROUP BY status`,
)
const OUTBOX_LOCK_EXPIRED = sql(
  'outbox_lock_expired',
  `SELECT id, attempt_count + 1 - cycle_start_attempt AS attempt_in_cycle
     FROM deliveries
    WHERE status = 'sending' AND lease_until < now() AND channel = $1
    ORDER BY lease_until
    LIMIT $2
    FOR UPDATE SKIP LOCKED`,
)
const OUTBOX_RECORD_LOST = sql(
  'outbox_record_lost',
  `WITH reaped AS (
     UPDATE deliveries d
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
   INSERT INTO delivery_attempts (delivery_id, attempt_number, started_at, duration_ms, error_message)
   SELECT id, attempt_count, last_attempt_at, (EXTRACT(EPOCH FROM now() - last_attempt_at) * 1000)::int, $4
     FROM reaped
   ON CONFLICT (delivery_id, attempt_number) DO NOTHING`,
)
