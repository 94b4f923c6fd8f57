import type { Database, Queryable } from './database'
import { statementsOf } from './statements'

export interface ApiUserRow {
  id: number
  name: string
  created_at: Date
}

export interface ApiTokenRow {
  id: number
  created_at: Date
  revoked_at: Date | null
  /** Its first characters; null for a token issued before they were kept. */
  prefix: string | null
  /** To the minute: written at most once a minute per token and process. */
  last_used_at: Date | null
}

export interface CreatedUser {
  userId: number
  tokenId: number
}

/** API users, their bearer tokens (stored as SHA-256 hashes) and their webhook signing secrets. */
export class ApiUserRepository {
  constructor(private readonly db: Database) {}

  /** Creates a user together with its first token, in one statement. */
  async createWithToken(tx: Queryable, name: string, webhookSecret: string, tokenHash: Buffer, prefix: string): Promise<CreatedUser> {
    const {
      rows: [row],
    } = await tx.query<{ user_id: number; token_id: number }>(API_USER_CREATE, [name, webhookSecret, tokenHash, prefix])
    return { userId: row!.user_id, tokenId: row!.token_id }
  }

  async list(): Promise<ApiUserRow[]> {
    return this.db.query<ApiUserRow>(API_USERS_LIST)
  }

  search(filters: { search?: string; afterId?: number }, limit: number): Promise<ApiUserRow[]> {
    const search = filters.search?.trim() || null
    // The name holds the text as typed: LIKE's own characters escaped.
    const pattern = search === null ? null : `%${search.replace(/[\\%_]/g, '\\$&')}%`
    const id = search !== null && /^[1-9][0-9]{0,14}$/.test(search) ? Number(search) : null
    return this.db.query<ApiUserRow>(API_USERS_SEARCH, [pattern, id, filters.afterId ?? 0, limit])
  }

  async find(userId: number): Promise<ApiUserRow | undefined> {
    const [row] = await this.db.query<ApiUserRow>(API_USER_GET, [userId])
    return row
  }

  /** Adds a token; undefined when the user does not exist. */
  async addToken(tx: Queryable, userId: number, tokenHash: Buffer, prefix: string): Promise<number | undefined> {
    const {
      rows: [row],
    } = await tx.query<{ id: number }>(API_TOKEN_ISSUE, [userId, tokenHash, prefix])
    return row?.id
  }

  async listTokens(userId: number): Promise<ApiTokenRow[] | undefined> {
    const rows = await this.db.query<ApiTokenRow & { user_exists: boolean }>(API_TOKENS_LIST, [userId])
    if (rows.length === 0) return undefined
    return rows.filter((r) => r.id !== null)
  }

  /** Revokes a token of this user (idempotent); false when there is no such token. */
  async revokeToken(tx: Queryable, userId: number, tokenId: number): Promise<boolean> {
    const { rows } = await tx.query(API_TOKEN_REVOKE, [tokenId, userId])
    return rows.length === 1
  }

  /** The user holding this live token, if any, and whether its last use is more than a minute old. */
  async findUserIdByTokenHash(tokenHash: Buffer): Promise<{ userId: number; useStale: boolean } | undefined> {
    const [row] = await this.db.query<{ user_id: number; use_stale: boolean }>(API_TOKEN_USER, [tokenHash])
    return row && { userId: row.user_id, useStale: row.use_stale }
  }

  /** Notes that the token was used now. */
  async touchToken(tokenHash: Buffer): Promise<void> {
    await this.db.query(API_TOKEN_TOUCH, [tokenHash])
  }

  /**
   * Makes `newSecret` the signing secret; the previous one keeps signing alongside it for
   * `graceSeconds`. False when the user does not exist.
   */
  async rotateWebhookSecret(tx: Queryable, userId: number, newSecret: string, graceSeconds: number): Promise<boolean> {
    const { rows } = await tx.query(API_USER_ROTATE_SECRET, [userId, newSecret, graceSeconds])
    return rows.length === 1
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const API_USER_CREATE = sql(
  'api_user_create',
  `WITH new_user AS (
     INSERT INTO api_users (name, webhook_secret) VALUES ($1, $2) RETURNING id
   )
   INSERT INTO api_tokens (user_id, token_hash, prefix)
   SELECT id, $3, $4 FROM new_user
   RETURNING user_id, id AS token_id`,
)
const API_USERS_LIST = sql('api_users_list', 'SELECT id, name, created_at FROM api_users ORDER BY id')
// A name search (ILIKE '%…%') reads the table: users are hundreds or thousands, not millions.
const API_USERS_SEARCH = sql(
  'api_users_search',
  `SELECT id, name, created_at FROM api_users
    WHERE ($1::text IS NULL OR id = $2 OR name ILIKE $1)
      AND id > $3
    ORDER BY id
    LIMIT $4`,
)
const API_USER_GET = sql('api_user_get', 'SELECT id, name, created_at FROM api_users WHERE id = $1')
const API_TOKEN_ISSUE = sql(
  'api_token_issue',
  'INSERT INTO api_tokens (user_id, token_hash, prefix) SELECT id, $2, $3 FROM api_users WHERE id = $1 RETURNING id',
)
const API_TOKENS_LIST = sql(
  'api_tokens_list',
  `SELECT t.id, t.created_at, t.revoked_at, t.prefix, t.last_used_at
     FROM api_users u LEFT JOIN api_tokens t ON t.user_id = u.id
    WHERE u.id = $1
    ORDER BY t.id`,
)
const API_TOKEN_REVOKE = sql('api_token_revoke', 'UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND user_id = $2 RETURNING id')
const API_TOKEN_USER = sql(
  'api_token_user',
  `SELECT user_id, last_used_at IS NULL OR last_used_at < now() - interval '1 minute' AS use_stale
     FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL`,
)
const API_TOKEN_TOUCH = sql('api_token_touch', 'UPDATE api_tokens SET last_used_at = now() WHERE token_hash = $1')
const API_USER_ROTATE_SECRET = sql(
  'api_user_rotate_secret',
  `UPDATE api_users
      SET previous_webhook_secret = webhook_secret,
          previous_webhook_secret_expires_at = now() + make_interval(secs => $3),
          webhook_secret = $2
    WHERE id = $1
    RETURNING id`,
)
