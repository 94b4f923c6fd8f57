import type { Database } from './database'

export interface ConsoleSessionRow {
  csrf_token: string
  expires_at: Date
}

/** The operator console's sessions, by the SHA-256 of their cookie's id. */
export class ConsoleSessionRepository {
  constructor(private readonly db: Database) {}

  /** Stores a new session, and forgets the expired ones (a handful at most: one operator's). */
  async create(idHash: Buffer, csrfToken: string, lifetimeMs: number): Promise<void> {
    await this.db.query(
      `WITH expired AS (DELETE FROM console_sessions WHERE expires_at < now())
       INSERT INTO console_sessions (id_hash, csrf_token, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3::float8 / 1000))`,
      [idHash, csrfToken, lifetimeMs],
    )
  }

  /** The session if it exists and has not expired. */
  async find(idHash: Buffer): Promise<ConsoleSessionRow | undefined> {
    const [row] = await this.db.query<ConsoleSessionRow>('SELECT csrf_token, expires_at FROM console_sessions WHERE id_hash = $1 AND expires_at > now()', [idHash])
    return row
  }

  async delete(idHash: Buffer): Promise<void> {
    await this.db.query('DELETE FROM console_sessions WHERE id_hash = $1', [idHash])
  }
}
