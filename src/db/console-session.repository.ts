import type { Role } from '../domain/operators'
import type { Database, Queryable } from './database'
import { statementsOf } from './statements'

export interface ConsoleSessionRow {
  csrf_token: string
  expires_at: Date
  /** The operator's; NULL for a session of the admin token. */
  operator_id: number | null
  email: string | null
  role: Role | null
}

/** The operator console's sessions, by the SHA-256 of their cookie's id. */
export class ConsoleSessionRepository {
  constructor(private readonly db: Database) {}

  /** Stores a new session (an operator's, or the admin token's: null), and forgets the expired ones. */
  async create(tx: Queryable, idHash: Buffer, csrfToken: string, lifetimeMs: number, operatorId: number | null, address: string): Promise<void> {
    await tx.query(CONSOLE_SESSION_CREATE, [idHash, csrfToken, lifetimeMs, operatorId, address])
  }

  /** The session if it exists, has not expired and its operator is not disabled; with the operator's role now. */
  async find(idHash: Buffer): Promise<ConsoleSessionRow | undefined> {
    const [row] = await this.db.query<ConsoleSessionRow>(CONSOLE_SESSION_FIND, [idHash])
    return row
  }

  /** Keeps a sealed slot for the session's next view of `path`, replacing any earlier one. */
  async keepOnce(idHash: Buffer, path: string, sealed: Buffer, lifetimeMs: number): Promise<void> {
    await this.db.query(CONSOLE_SESSION_KEEP_ONCE, [idHash, path, sealed, lifetimeMs])
  }

  /** The sealed slot kept for `path`, emptied in the same statement: a second view finds nothing. */
  async takeOnce(idHash: Buffer, path: string): Promise<Buffer | undefined> {
    const [row] = await this.db.query<{ shown_once: Buffer }>(CONSOLE_SESSION_TAKE_ONCE, [idHash, path])
    return row?.shown_once
  }

  async delete(idHash: Buffer): Promise<void> {
    await this.db.query(CONSOLE_SESSION_DELETE, [idHash])
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const CONSOLE_SESSION_CREATE = sql(
  'console_session_create',
  `WITH expired AS (DELETE FROM console_sessions WHERE expires_at < now())
   INSERT INTO console_sessions (id_hash, csrf_token, expires_at, operator_id, address)
   VALUES ($1, $2, now() + make_interval(secs => $3::float8 / 1000), $4, $5)`,
)
const CONSOLE_SESSION_FIND = sql(
  'console_session_find',
  `SELECT s.csrf_token, s.expires_at, s.operator_id, o.email, o.role
     FROM console_sessions s LEFT JOIN operators o ON o.id = s.operator_id
    WHERE s.id_hash = $1 AND s.expires_at > now()
      AND (s.operator_id IS NULL OR o.disabled_at IS NULL)`,
)
const CONSOLE_SESSION_KEEP_ONCE = sql(
  'console_session_keep_once',
  `UPDATE console_sessions
      SET shown_once = $3, shown_once_path = $2, shown_once_until = now() + make_interval(secs => $4::float8 / 1000)
    WHERE id_hash = $1`,
)
// The old value is read under the row's lock, so two views at once cannot both take it.
const CONSOLE_SESSION_TAKE_ONCE = sql(
  'console_session_take_once',
  `UPDATE console_sessions s
      SET shown_once = NULL, shown_once_path = NULL, shown_once_until = NULL
     FROM (SELECT id_hash, shown_once, shown_once_path, shown_once_until FROM console_sessions WHERE id_hash = $1 FOR UPDATE) kept
    WHERE s.id_hash = kept.id_hash AND kept.shown_once_path = $2
   RETURNING CASE WHEN kept.shown_once_until > now() THEN kept.shown_once END AS shown_once`,
)
const CONSOLE_SESSION_DELETE = sql('console_session_delete', 'DELETE FROM console_sessions WHERE id_hash = $1')
