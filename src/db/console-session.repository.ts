import type { Database } from './database'
import { statementsOf } from './statements'

export interface ConsoleSessionRow {
  csrf_token: string
  expires_at: Date
}

/** The operator console's sessions, by the SHA-256 of their cookie's id. */
export class ConsoleSessionRepository {
  constructor(private readonly db: Database) {}

  /** Stores a new session, and forgets the expired ones (a handful at most: one operator's). */
  async create(idHash: Buffer, csrfToken: string, lifetimeMs: number): Promise<void> {
    await this.db.query(CONSOLE_SESSION_CREATE, [idHash, csrfToken, lifetimeMs])
  }

  /** The session if it exists and has not expired. */
  async find(idHash: Buffer): Promise<ConsoleSessionRow | undefined> {
    const [row] = await this.db.query<ConsoleSessionRow>(CONSOLE_SESSION_FIND, [idHash])
    return row
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
   INSERT INTO console_sessions (id_hash, csrf_token, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3::float8 / 1000))`,
)
const CONSOLE_SESSION_FIND = sql('console_session_find', 'SELECT csrf_token, expires_at FROM console_sessions WHERE id_hash = $1 AND expires_at > now()')
const CONSOLE_SESSION_DELETE = sql('console_session_delete', 'DELETE FROM console_sessions WHERE id_hash = $1')
