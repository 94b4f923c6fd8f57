import type { EndpointFields, EndpointPatch, EndpointRecord } from '../domain/webhook-endpoint'
import type { Database, Queryable } from './database'
import { statementsOf } from './statements'

/**
 * Account webhook endpoints. Every statement names the user: another user's endpoint is as absent
 * as a missing one. The secret is read only to sign (the delivery claim, the test call), never
 * listed.
 */

interface EndpointRow {
  id: number
  url: string
  description: string
  event_types: EndpointFields['eventTypes']
  carrier_codes: string[]
  milestones: EndpointFields['milestones']
  enabled: boolean
  created_at: Date
  updated_at: Date
}

const COLUMNS = 'id, url, description, event_types, carrier_codes, milestones, enabled, created_at, updated_at'

function toRecord(row: EndpointRow): EndpointRecord {
  return {
    endpointId: row.id,
    url: row.url,
    eventTypes: row.event_types,
    description: row.description,
    carrierCodes: row.carrier_codes,
    milestones: row.milestones,
    enabled: row.enabled,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

export class WebhookEndpointRepository {
  constructor(private readonly db: Database) {}

  /**
   * Creates the endpoint unless the user has `max` already; undefined then. The user's row is
   * locked first (until the transaction ends), so that two creates side by side cannot both take
   * the last place.
   */
  async create(tx: Queryable, userId: number, fields: EndpointFields, secret: string, max: number): Promise<EndpointRecord | undefined> {
    await tx.query(ENDPOINT_LOCK_USER, [userId])
    const { rows: counted } = await tx.query<{ n: number }>(ENDPOINT_COUNT, [userId])
    if (counted[0]!.n >= max) return undefined
    const { rows } = await tx.query<EndpointRow>(ENDPOINT_CREATE, [
      userId,
      fields.url,
      fields.description,
      fields.eventTypes,
      fields.carrierCodes,
      fields.milestones,
      fields.enabled,
      secret,
    ])
    return toRecord(rows[0]!)
  }

  async list(userId: number): Promise<EndpointRecord[]> {
    const rows = await this.db.query<EndpointRow>(ENDPOINTS_LIST, [userId])
    return rows.map(toRecord)
  }

  async find(userId: number, endpointId: number): Promise<EndpointRecord | undefined> {
    const [row] = await this.db.query<EndpointRow>(ENDPOINT_GET, [userId, endpointId])
    return row && toRecord(row)
  }

  /**
   * Changes the fields given. Disabling fails the endpoint's deliveries still waiting, in the same
   * transaction ("endpoint disabled"): a disabled endpoint is sent nothing, and the failed ones can
   * be replayed once it is enabled again. An attempt in flight finishes.
   */
  async update(tx: Queryable, userId: number, endpointId: number, patch: EndpointPatch): Promise<EndpointRecord | undefined> {
    const { rows } = await tx.query<EndpointRow>(ENDPOINT_UPDATE, [
      userId,
      endpointId,
      patch.url ?? null,
      patch.description ?? null,
      patch.eventTypes ?? null,
      patch.carrierCodes ?? null,
      patch.milestones ?? null,
      patch.enabled ?? null,
    ])
    const row = rows[0]
    if (row && !row.enabled) await tx.query(ENDPOINT_FAIL_WAITING, [endpointId])
    return row && toRecord(row)
  }

  /** Deletes the endpoint; its deliveries go with it (migration 0010's trigger). */
  async delete(userId: number, endpointId: number): Promise<boolean> {
    const rows = await this.db.query(ENDPOINT_DELETE, [userId, endpointId])
    return rows.length === 1
  }

  /** Replaces the secret; the old one keeps signing for `graceSeconds`. */
  async rotateSecret(userId: number, endpointId: number, secret: string, graceSeconds: number): Promise<boolean> {
    const rows = await this.db.query(ENDPOINT_ROTATE_SECRET, [userId, endpointId, secret, graceSeconds])
    return rows.length === 1
  }

  /** The endpoint's URL and its signing secrets (the previous one while it still signs). */
  async signingTarget(userId: number, endpointId: number): Promise<{ url: string; secrets: string[] } | undefined> {
    const [row] = await this.db.query<{ url: string; secret: string; previous: string | null }>(ENDPOINT_TEST_TARGET, [userId, endpointId])
    return row && { url: row.url, secrets: row.previous ? [row.secret, row.previous] : [row.secret] }
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const ENDPOINT_LOCK_USER = sql('endpoint_lock_user', 'SELECT 1 FROM api_users WHERE id = $1 FOR UPDATE')
const ENDPOINT_COUNT = sql('endpoint_count', 'SELECT count(*)::int AS n FROM webhook_endpoints WHERE user_id = $1')
const ENDPOINT_CREATE = sql(
  'endpoint_create',
  `INSERT INTO webhook_endpoints (user_id, url, description, event_types, carrier_codes, milestones, enabled, secret)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
   RETURNING ${COLUMNS}`,
)
const ENDPOINTS_LIST = sql('endpoints_list', `SELECT ${COLUMNS} FROM webhook_endpoints WHERE user_id = $1 ORDER BY id`)
const ENDPOINT_GET = sql('endpoint_get', `SELECT ${COLUMNS} FROM webhook_endpoints WHERE user_id = $1 AND id = $2`)
const ENDPOINT_UPDATE = sql(
  'endpoint_update',
  `UPDATE webhook_endpoints
      SET url = COALESCE($3, url),
          description = COALESCE($4, description),
          event_types = COALESCE($5, event_types),
          carrier_codes = COALESCE($6, carrier_codes),
          milestones = COALESCE($7, milestones),
          enabled = COALESCE($8, enabled),
          updated_at = now()
    WHERE user_id = $1 AND id = $2
    RETURNING ${COLUMNS}`,
)
const ENDPOINT_FAIL_WAITING = sql(
  'endpoint_fail_waiting',
  `UPDATE deliveries
      SET status = 'failed', next_attempt_at = NULL, error_message = 'endpoint disabled', updated_at = now()
    WHERE endpoint_id = $1 AND status IN ('pending', 'retry_wait')`,
)
const ENDPOINT_DELETE = sql('endpoint_delete', 'DELETE FROM webhook_endpoints WHERE user_id = $1 AND id = $2 RETURNING id')
const ENDPOINT_ROTATE_SECRET = sql(
  'endpoint_rotate_secret',
  `UPDATE webhook_endpoints
      SET previous_secret = secret, previous_secret_expires_at = now() + make_interval(secs => $4), secret = $3, updated_at = now()
    WHERE user_id = $1 AND id = $2
    RETURNING id`,
)
const ENDPOINT_TEST_TARGET = sql(
  'endpoint_test_target',
  `SELECT url, secret, CASE WHEN previous_secret_expires_at > now() THEN previous_secret END AS previous
     FROM webhook_endpoints WHERE user_id = $1 AND id = $2`,
)
