import { createHash } from 'node:crypto'
import { Coalescer } from './coalescer'
import type { Database, Transaction } from './database'
import { statementsOf } from './statements'

export interface WaitingPush {
  id: number
  source: string
  body: Buffer
}

/** A task a push names, with the newest event it has (a push older than that moves no status). */
export interface PushedTask {
  taskId: number
  carrierCode: string
  trackingNumber: string
  newestEventAt: Date | null
}

/**
 * The inbound gateway's storage (docs/carriers.md, "Pushes"): a push is written before it is
 * answered (the same bytes twice are one row), then claimed by a worker in the order the pushes
 * arrived (locked by the worker's claiming transaction, so a worker that dies leaves them to the
 * next), applied, and marked with what it did. An applied push keeps its digest a week (a sender's
 * retries are found) but not its body.
 */
interface StoreRequest {
  source: string
  digest: string
  body: Buffer
}

export class InboundRepository {
  /**
   * Pushes arriving together are written in one statement and one commit (a sender pushes in
   * bursts, 50 at once in the bench): each is still answered only once its own row is committed.
   */
  private readonly stores: Coalescer<StoreRequest, boolean>

  constructor(private readonly db: Database) {
    this.stores = new Coalescer<StoreRequest, boolean>({
      maxInFlight: 2,
      maxGroup: 200,
      deadlineMs: db.timeouts.statementMs,
      // The same body twice in one group would be one row: kept apart, the second finds the first.
      keys: (request) => [`${request.source} ${request.digest}`],
      run: (requests) => this.storeMany(requests),
      runOne: async (request) => (await this.storeMany([request]))[0]!,
    })
  }

  /** Stores a push; false when the same body of the same source was stored already. */
  store(source: string, body: Buffer): Promise<boolean> {
    return this.stores.submit({ source, digest: createHash('sha256').update(body).digest('hex'), body })
  }

  private async storeMany(requests: StoreRequest[]): Promise<boolean[]> {
    const rows = await this.db.query<{ source: string; digest: string }>(
      INBOUND_STORE,
      [requests.map((r) => r.source), requests.map((r) => r.digest), requests.map((r) => r.body)],
      'inbound_store',
    )
    const stored = new Set(rows.map((r) => `${r.source} ${r.digest}`))
    return requests.map((r) => stored.has(`${r.source} ${r.digest}`))
  }

  /**
   * Locks up to `limit` waiting pushes (none held back, none another worker holds), oldest first,
   * until `tx` ends: a lock, not a lease written into the row, which would copy every body once
   * more. The transaction may stay open while the pushes are applied elsewhere (no carrier call).
   */
  async claim(tx: Transaction, limit: number, holdMs: number): Promise<WaitingPush[]> {
    // The server's own limit on an idle transaction (a few statement deadlines) would end it midway.
    await tx.query(INBOUND_HOLD_OPEN, [String(holdMs)], 'inbound_hold_open')
    const { rows } = await tx.query<{ id: number; source: string; body: Buffer }>(INBOUND_CLAIM, [limit], 'inbound_claim')
    return rows.map((r) => ({ id: r.id, source: r.source, body: r.body }))
  }

  /**
   * Marks pushes applied with what each did, dropping their bodies; `held` ones (their task was
   * busy) are left waiting, not claimed again for `retryMs`.
   */
  async settle(tx: Transaction, outcomes: readonly { id: number; outcome: string }[], held: readonly number[], retryMs: number): Promise<void> {
    if (outcomes.length > 0) await tx.query(INBOUND_SETTLE, [outcomes.map((o) => o.id), outcomes.map((o) => o.outcome)], 'inbound_settle')
    if (held.length > 0) await tx.query(INBOUND_HOLD, [held, retryMs], 'inbound_hold')
  }

  /** The active tasks of routed carriers' numbers, with the newest event each has. */
  async tasksOf(numbers: readonly { carrierCode: string; trackingNumber: string }[]): Promise<PushedTask[]> {
    if (numbers.length === 0) return []
    const rows = await this.db.query<{ task_id: number; carrier_code: string; tracking_number: string; newest_event_at: Date | null }>(
      INBOUND_TASKS_OF,
      [numbers.map((n) => n.carrierCode), numbers.map((n) => n.trackingNumber)],
      'inbound_tasks_of',
    )
    return rows.map((r) => ({ taskId: r.task_id, carrierCode: r.carrier_code, trackingNumber: r.tracking_number, newestEventAt: r.newest_event_at }))
  }

  /** Deletes pushes applied over a week ago. */
  async prune(): Promise<void> {
    await this.db.query(INBOUND_PRUNE, [], 'inbound_prune')
  }
}

const sql = statementsOf(import.meta.url)
const INBOUND_STORE = sql(
  'inbound_store',
  `INSERT INTO inbound_pushes (source, digest, body)
   SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[])
   ON CONFLICT ON CONSTRAINT inbound_pushes_once DO NOTHING
   RETURNING source, digest`,
)
const INBOUND_HOLD_OPEN = sql('inbound_hold_open', `SELECT set_config('idle_in_transaction_session_timeout', $1, true)`)
const INBOUND_CLAIM = sql(
  'inbound_claim',
  `SELECT id, source, body FROM inbound_pushes
    WHERE applied_at IS NULL AND (lease_until IS NULL OR lease_until <= now())
    ORDER BY id
    LIMIT $1
      FOR UPDATE SKIP LOCKED`,
)
// The body is not kept once applied: the row then holds what the week of de-duplication needs.
const INBOUND_SETTLE = sql(
  'inbound_settle',
  `UPDATE inbound_pushes p SET applied_at = now(), outcome = o.outcome, lease_until = NULL, attempts = p.attempts + 1, body = ''::bytea
     FROM unnest($1::bigint[], $2::text[]) AS o (id, outcome)
    WHERE p.id = o.id`,
)
const INBOUND_HOLD = sql(
  'inbound_hold',
  `UPDATE inbound_pushes SET lease_until = now() + make_interval(secs => $2::float8 / 1000), attempts = attempts + 1
    WHERE id = ANY($1::bigint[])`,
)
const INBOUND_TASKS_OF = sql(
  'inbound_tasks_of',
  `SELECT rt.task_id, rt.carrier_code, rt.tracking_number,
          (SELECT e.event_time FROM tracking_events e WHERE e.task_id = rt.task_id ORDER BY e.event_time DESC LIMIT 1) AS newest_event_at
     FROM unnest($1::text[], $2::text[]) AS n (carrier_code, tracking_number)
     JOIN route_tasks rt ON rt.carrier_code = n.carrier_code AND rt.tracking_number = n.tracking_number
     JOIN task_schedule s ON s.task_id = rt.task_id AND s.carrier_code = rt.carrier_code AND s.next_refresh_at IS NOT NULL`,
)
const INBOUND_PRUNE = sql('inbound_prune', `DELETE FROM inbound_pushes WHERE applied_at < now() - interval '7 days'`)
