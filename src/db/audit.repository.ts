import type { Actor, Outcome, AuditEntry } from '../domain/audit'
import { actorName } from '../domain/audit'
import type { Database, Queryable } from './database'
import { statementsOf } from './statements'

export interface AuditRow {
  id: number
  at: Date
  actor_kind: Actor['kind']
  operator_id: number | null
  actor: string
  action: string
  target_kind: string | null
  target_id: string | null
  address: string | null
  outcome: Outcome
  detail: Record<string, unknown>
}

export interface AuditFilters {
  operatorId?: number
  /** 'admin token' entries (actor_kind admin_token), 'command line' (cli). */
  actorKind?: Actor['kind']
  action?: string
  targetKind?: string
  targetId?: string
  since?: Date
  until?: Date
  /** Entries older than this id (the cursor). */
  beforeId?: number
}

/** The audit trail: written beside each change, read newest first, purged by age. */
export class AuditRepository {
  constructor(private readonly db: Database) {}

  /** Records an entry in the transaction of the change it records. */
  async add(tx: Queryable, actor: Actor, entry: AuditEntry, outcome: Outcome): Promise<void> {
    await tx.query(
      AUDIT_ADD,
      [
        actor.kind,
        actor.kind === 'operator' ? actor.operatorId : null,
        actorName(actor),
        entry.action,
        entry.target.kind,
        entry.target.id === undefined ? null : String(entry.target.id),
        actor.kind === 'cli' ? null : actor.address,
        outcome,
        JSON.stringify(entry.detail ?? {}),
      ],
      'audit_add',
    )
  }

  /** Newest first, `limit` at most, each filter given narrowing it. */
  list(filters: AuditFilters, limit: number): Promise<AuditRow[]> {
    return this.db.query<AuditRow>(AUDIT_LIST, [
      filters.operatorId ?? null,
      filters.actorKind ?? null,
      filters.action ?? null,
      filters.targetKind ?? null,
      filters.targetId ?? null,
      filters.since ?? null,
      filters.until ?? null,
      filters.beforeId ?? null,
      limit,
    ])
  }

  /** Deletes entries older than `days` days, `batch` at most; how many went. */
  async purge(days: number, batch: number): Promise<number> {
    const rows = await this.db.query(AUDIT_PURGE, [days, batch])
    return rows.length
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const AUDIT_ADD = sql(
  'audit_add',
  `INSERT INTO audit_log (actor_kind, operator_id, actor, action, target_kind, target_id, address, outcome, detail)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)`,
)
// One text for every filter: a filter not given is NULL and drops out. The log is read by people,
// a page at a time; its indexes (operator, action, target, each with the id) serve the filters.
const AUDIT_LIST = sql(
  'audit_list',
  `SELECT id, at, actor_kind, operator_id, actor, action, target_kind, target_id, address, outcome, detail
     FROM audit_log
    WHERE ($1::bigint IS NULL OR operator_id = $1)
      AND ($2::text IS NULL OR actor_kind = $2)
      AND ($3::text IS NULL OR action = $3)
      AND ($4::text IS NULL OR target_kind = $4)
      AND ($5::text IS NULL OR target_id = $5)
      AND ($6::timestamptz IS NULL OR at >= $6)
      AND ($7::timestamptz IS NULL OR at < $7)
      AND ($8::bigint IS NULL OR id < $8)
    ORDER BY id DESC
    LIMIT $9`,
)
const AUDIT_PURGE = sql(
  'audit_purge',
  `DELETE FROM audit_log
    WHERE id IN (SELECT id FROM audit_log WHERE at < now() - make_interval(days => $1) ORDER BY at LIMIT $2)
   RETURNING id`,
)
