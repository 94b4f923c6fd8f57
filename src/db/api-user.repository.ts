import type { Database } from './database'

export interface ApiUserRow {
  id: number
  name: string
  created_at: Date
}

export interface ApiTokenRow {
  id: number
  created_at: Date
  revoked_at: Date | null
}

export interface CreatedUser {
  userId: number
  tokenId: number
}

/** API users, their bearer tokens (stored as SHA-256 hashes) and their webhook signing secrets. */
export class ApiUserRepository {
  constructor(private readonly db: Database) {}

  /** Creates a user together with its first token, in one statement. */
  async createWithToken(name: string, webhookSecret: string, tokenHash: Buffer): Promise<CreatedUser> {
    const [row] = await this.db.query<{ user_id: number; token_id: number }>(
      `WITH new_user AS (
         INSERT INTO api_users (name, webhook_secret) VALUES ($1, $2) RETURNING id
       )
       INSERT INTO api_tokens (user_id, token_hash)
       SELECT id, $3 FROM new_user
       RETURNING user_id, id AS token_id`,
      [name, webhookSecret, tokenHash],
    )
    return { userId: row!.user_id, tokenId: row!.token_id }
  }

  async list(): Promise<ApiUserRow[]> {
    return this.db.query<ApiUserRow>('SELECT id, name, created_at FROM api_users ORDER BY id')
  }

  async find(userId: number): Promise<ApiUserRow | undefined> {
    const [row] = await this.db.query<ApiUserRow>('SELECT id, name, created_at FROM api_users WHERE id = $1', [userId])
    return row
  }

  /** Adds a token; undefined when the user does not exist. */
  async addToken(userId: number, tokenHash: Buffer): Promise<number | undefined> {
    const [row] = await this.db.query<{ id: number }>(
      'INSERT INTO api_tokens (user_id, token_hash) SELECT id, $2 FROM api_users WHERE id = $1 RETURNING id',
      [userId, tokenHash],
    )
    return row?.id
  }

  async listTokens(userId: number): Promise<ApiTokenRow[] | undefined> {
    const rows = await this.db.query<ApiTokenRow & { user_exists: boolean }>(
      `SELECT t.id, t.created_at, t.revoked_at
         FROM api_users u LEFT JOIN api_tokens t ON t.user_id = u.id
        WHERE u.id = $1
        ORDER BY t.id`,
      [userId],
    )
    if (rows.length === 0) return undefined
    return rows.filter((r) => r.id !== null)
  }

  /** Revokes a token of this user (idempotent); false when there is no such token. */
  async revokeToken(userId: number, tokenId: number): Promise<boolean> {
    const rows = await this.db.query(
      'UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND user_id = $2 RETURNING id',
      [tokenId, userId],
    )
    return rows.length === 1
  }

  /** The user holding this live token, if any. */
  async findUserIdByTokenHash(tokenHash: Buffer): Promise<number | undefined> {
    const [row] = await this.db.query<{ user_id: number }>(
      'SELECT user_id FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL',
      [tokenHash],
    )
    return row?.user_id
  }

  /**
   * Makes `newSecret` the signing secret; the previous one keeps signing alongside it for
   * `graceSeconds`. False when the user does not exist.
   */
  async rotateWebhookSecret(userId: number, newSecret: string, graceSeconds: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE api_users
          SET previous_webhook_secret = webhook_secret,
              previous_webhook_secret_expires_at = now() + make_interval(secs => $3),
              webhook_secret = $2
        WHERE id = $1
        RETURNING id`,
      [userId, newSecret, graceSeconds],
    )
    return rows.length === 1
  }
}
