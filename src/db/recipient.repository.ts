import { randomBytes } from 'node:crypto'
import type { MessageChannel, NotificationSettings, Recipient, Trigger } from '../domain/notifications'
import type { Channel } from '../domain/outbox'
import type { WebhookStatus } from '../domain/statuses'
import type { Language } from '../domain/tracking-page'
import type { Database, Queryable } from './database'
import { statementsOf } from './statements'
import { iso } from './task-document.sql'

/**
 * The shop's customers (migration 0028): each task's recipient, the addresses a shop has written to
 * (by keyed hash: their unsubscribe tokens and suppressions), and each user's notification settings.
 * The hashes are made by the caller (services/notification.service.ts); none of this is logged.
 */

/** A recipient to set, with its address's keyed hash and the language of the address's unsubscribe page. */
export interface RecipientToSet {
  taskId: number
  recipient: Recipient
  emailHash: string | null
  phoneHash: string | null
  addressLanguage: Language
}

/** A message of a task, as the full task shows it: no address, no text. */
export interface TaskMessage {
  channel: Exclude<Channel, 'webhook'>
  trigger: Trigger
  status: WebhookStatus
  attempts: number
  sentAt: string | null
  error: string
}

/** An address a shop has written to, as its unsubscribe token finds it. */
export interface RecipientAddress {
  userId: number
  channel: 'email' | 'sms'
  language: Language
  suppressed: boolean
}

interface AddressRow {
  user_id: number
  channel: 'email' | 'sms'
  language: Language
  suppressed: boolean
}

const addressOf = (row: AddressRow): RecipientAddress => ({
  userId: Number(row.user_id),
  channel: row.channel,
  language: row.language,
  suppressed: row.suppressed,
})

interface RecipientRow {
  email: string | null
  phone: string | null
  name: string | null
  language: Language | null
}

export class RecipientRepository {
  constructor(private readonly db: Database) {}

  /**
   * Sets the recipients of the user's tasks (replacing any), and makes their email addresses known
   * to the shop (a token each) in the same transaction, whatever their number: two statements. The
   * ids of the tasks written (a task that is not the user's is not).
   */
  async setMany(tx: Queryable, userId: number, rows: RecipientToSet[]): Promise<Set<number>> {
    if (rows.length === 0) return new Set()
    const column = <T>(f: (r: RecipientToSet) => T) => rows.map(f)
    const { rows: written } = await tx.query<{ task_id: number }>(RECIPIENTS_SET, [
      userId,
      column((r) => r.taskId),
      column((r) => r.recipient.email),
      column((r) => r.emailHash),
      column((r) => r.recipient.phone),
      column((r) => r.phoneHash),
      column((r) => r.recipient.name),
      column((r) => r.recipient.language),
    ])
    // One row per address: a statement's DO UPDATE may not meet the same row twice.
    const addresses = new Map<string, { channel: 'email' | 'sms'; hash: string; language: Language }>()
    for (const r of rows) {
      if (r.emailHash !== null) addresses.set(`email:${r.emailHash}`, { channel: 'email', hash: r.emailHash, language: r.addressLanguage })
      if (r.phoneHash !== null) addresses.set(`sms:${r.phoneHash}`, { channel: 'sms', hash: r.phoneHash, language: r.addressLanguage })
    }
    if (addresses.size > 0) {
      const known = [...addresses.values()]
      await tx.query(RECIPIENT_ADDRESSES_KNOWN, [
        userId,
        known.map((a) => a.channel),
        known.map((a) => a.hash),
        known.map(() => newToken()),
        known.map((a) => a.language),
      ])
    }
    return new Set(written.map((r) => Number(r.task_id)))
  }

  /** Removes the recipient of the user's task; false when the user has no such task. */
  async remove(tx: Queryable, userId: number, taskId: number): Promise<boolean> {
    const { rows } = await tx.query<{ found: boolean }>(RECIPIENT_REMOVE, [userId, taskId])
    return rows[0]?.found === true
  }

  /** The recipient of the user's task: null when it has none, undefined when the user has no such task. */
  async of(userId: number, taskId: number): Promise<Recipient | null | undefined> {
    const [row] = await this.db.query<RecipientRow & { task: boolean }>(RECIPIENT_OF, [userId, taskId])
    if (!row) return undefined
    return row.email === null && row.phone === null ? null : { email: row.email, phone: row.phone, name: row.name, language: row.language }
  }

  async byToken(token: string): Promise<RecipientAddress | undefined> {
    const [row] = await this.db.query<AddressRow>(ADDRESS_BY_TOKEN, [token])
    return row && addressOf(row)
  }

  /** Suppresses the address of this token (kept if it was already): the address; undefined for an unknown token. */
  async suppressByToken(token: string, reason: string): Promise<RecipientAddress | undefined> {
    const [row] = await this.db.query<AddressRow>(ADDRESS_SUPPRESS_BY_TOKEN, [token, reason])
    return row && addressOf(row)
  }

  /** Suppresses an address of the user's (its hash), known or not. */
  async suppress(userId: number, channel: 'email' | 'sms', hash: string, reason: string, language: Language): Promise<void> {
    await this.db.query(ADDRESS_SUPPRESS, [userId, channel, hash, reason, newToken(), language])
  }

  /**
   * A number replied STOP (or START) to the sending number: every shop that knows it sends it
   * nothing (or may again, when STOP was why). How many shops' addresses changed.
   */
  async stopEverywhere(channel: 'sms', hash: string, reason: string): Promise<number> {
    return (await this.db.query(ADDRESS_STOP_EVERYWHERE, [channel, hash, reason])).length
  }

  async startEverywhere(channel: 'sms', hash: string, reason: string): Promise<number> {
    return (await this.db.query(ADDRESS_START_EVERYWHERE, [channel, hash, reason])).length
  }

  /**
   * What the full task adds of the user's task, in one statement: its recipient (null: none) and
   * its messages, oldest first (deliveries_message_once). The task is the caller's to check.
   */
  async ofTask(userId: number, taskId: number): Promise<{ recipient: Recipient | null; notifications: TaskMessage[] }> {
    const [row] = await this.db.query<{ recipient: Recipient | null; notifications: TaskMessage[] }>(TASK_RECIPIENT_AND_MESSAGES, [userId, taskId])
    return row!
  }

  /**
   * Deletes the recipients of tasks that ended (inactive: terminal or stopped) over `days` ago,
   * `batch` at the most, skipping those another transaction holds; how many went.
   */
  async purgeEnded(days: number, batch: number): Promise<number> {
    const rows = await this.db.query(RECIPIENT_PURGE_ENDED, [days, batch])
    return rows.length
  }

  async settings(userId: number): Promise<NotificationSettings | null> {
    const [row] = await this.db.query<{ settings: NotificationSettings | null }>(SETTINGS_READ, [userId])
    return row?.settings ?? null
  }

  /** A user's settings (null: the defaults) and its suppressed addresses by channel; undefined for no such user. */
  async userView(userId: number): Promise<{ settings: NotificationSettings | null; suppressed: { email: number; sms: number } } | undefined> {
    const [row] = await this.db.query<{ settings: NotificationSettings | null; email: number; sms: number }>(USER_VIEW, [userId])
    return row && { settings: row.settings, suppressed: { email: row.email, sms: row.sms } }
  }

  async saveSettings(tx: Queryable, userId: number, settings: NotificationSettings): Promise<void> {
    await tx.query(SETTINGS_SAVE, [userId, JSON.stringify(settings)])
  }
}

/**
 * The recipients a channel the user turned on can reach, by task, for the tasks given (those whose
 * milestone a refresh changed): the user's settings and those channels, what the refresh's plan of
 * messages needs, in its transaction.
 */
export async function messageAudienceOf(
  tx: Queryable,
  taskIds: number[],
): Promise<Map<number, { settings: NotificationSettings; channels: MessageChannel[] }>> {
  const audience = new Map<number, { settings: NotificationSettings; channels: MessageChannel[] }>()
  if (taskIds.length === 0) return audience
  const { rows } = await tx.query<{ task_id: number; settings: NotificationSettings; email: boolean; sms: boolean }>(
    MESSAGE_AUDIENCE,
    [taskIds],
    'message_audience',
  )
  for (const row of rows) {
    const channels: MessageChannel[] = []
    if (row.email) channels.push('email')
    if (row.sms) channels.push('sms')
    audience.set(Number(row.task_id), { settings: row.settings, channels })
  }
  return audience
}

// 128 random bits, as the tracking pages' tokens.
const newToken = () => randomBytes(16).toString('base64url')

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const RECIPIENTS_SET = sql(
  'recipients_set',
  `INSERT INTO task_recipients (task_id, user_id, email, email_hash, phone, phone_hash, name, language)
   SELECT t.id, t.user_id, r.email, r.email_hash, r.phone, r.phone_hash, r.name, r.language
     FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
          AS r (task_id, email, email_hash, phone, phone_hash, name, language)
     JOIN tracking_tasks t ON t.id = r.task_id AND t.user_id = $1
   ON CONFLICT (task_id) DO UPDATE
      SET email = EXCLUDED.email, email_hash = EXCLUDED.email_hash, phone = EXCLUDED.phone, phone_hash = EXCLUDED.phone_hash, name = EXCLUDED.name,
          language = EXCLUDED.language, updated_at = now()
   RETURNING task_id`,
)
const RECIPIENT_ADDRESSES_KNOWN = sql(
  'recipient_addresses_known',
  `INSERT INTO recipient_addresses (user_id, channel, address_hash, token, language)
   SELECT $1, a.channel, a.hash, a.token, a.language FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS a (channel, hash, token, language)
   ON CONFLICT (user_id, channel, address_hash) DO UPDATE SET language = EXCLUDED.language`,
)
const RECIPIENT_REMOVE = sql(
  'recipient_remove',
  `WITH task AS (SELECT id FROM tracking_tasks WHERE user_id = $1 AND id = $2),
   removed AS (DELETE FROM task_recipients r USING task WHERE r.task_id = task.id)
   SELECT EXISTS (SELECT FROM task) AS found`,
)
const RECIPIENT_OF = sql(
  'recipient_of',
  `SELECT r.email, r.phone, r.name, r.language
     FROM tracking_tasks t LEFT JOIN task_recipients r ON r.task_id = t.id
    WHERE t.user_id = $1 AND t.id = $2`,
)
const ADDRESS_BY_TOKEN = sql(
  'recipient_address_by_token',
  `SELECT user_id, channel, language, suppressed_at IS NOT NULL AS suppressed FROM recipient_addresses WHERE token = $1`,
)
const ADDRESS_SUPPRESS_BY_TOKEN = sql(
  'recipient_address_suppress_by_token',
  `UPDATE recipient_addresses
      SET suppressed_at = COALESCE(suppressed_at, now()), suppressed_reason = COALESCE(suppressed_reason, $2)
    WHERE token = $1
    RETURNING user_id, channel, language, true AS suppressed`,
)
const ADDRESS_SUPPRESS = sql(
  'recipient_address_suppress',
  `INSERT INTO recipient_addresses (user_id, channel, address_hash, token, language, suppressed_at, suppressed_reason)
   VALUES ($1, $2, $3, $5, $6, now(), $4)
   ON CONFLICT (user_id, channel, address_hash) DO UPDATE
      SET suppressed_at = COALESCE(recipient_addresses.suppressed_at, now()),
          suppressed_reason = COALESCE(recipient_addresses.suppressed_reason, EXCLUDED.suppressed_reason)`,
)
const ADDRESS_STOP_EVERYWHERE = sql(
  'recipient_address_stop_everywhere',
  `UPDATE recipient_addresses SET suppressed_at = now(), suppressed_reason = $3
    WHERE channel = $1 AND address_hash = $2 AND suppressed_at IS NULL
    RETURNING user_id`,
)
const ADDRESS_START_EVERYWHERE = sql(
  'recipient_address_start_everywhere',
  `UPDATE recipient_addresses SET suppressed_at = NULL, suppressed_reason = NULL
    WHERE channel = $1 AND address_hash = $2 AND suppressed_reason = $3
    RETURNING user_id`,
)
const RECIPIENT_PURGE_ENDED = sql(
  'recipient_purge_ended',
  `DELETE FROM task_recipients r
    WHERE r.task_id IN (SELECT e.task_id
                          FROM task_recipients e JOIN tracking_tasks t ON t.id = e.task_id
                         WHERE t.inactive_since < now() - make_interval(days => $1)
                         LIMIT $2
                           FOR UPDATE OF e SKIP LOCKED)
   RETURNING r.task_id`,
)
const TASK_RECIPIENT_AND_MESSAGES = sql(
  'task_recipient_and_messages',
  `SELECT (SELECT json_build_object('email', r.email, 'phone', r.phone, 'name', r.name, 'language', r.language)
             FROM task_recipients r
            WHERE r.task_id = $2 AND r.user_id = $1) AS recipient,
          COALESCE((SELECT json_agg(json_build_object('channel', d.channel, 'trigger', d.trigger, 'status', d.status, 'attempts', d.attempt_count,
                                                      'sentAt', CASE WHEN d.status = 'success' THEN ${iso('d.last_attempt_at')} END,
                                                      'error', CASE WHEN d.status = 'success' THEN '' ELSE COALESCE(d.error_message, '') END)
                                    ORDER BY d.id)
                      FROM deliveries d
                     WHERE d.task_id = $2 AND d.user_id = $1 AND d.trigger IS NOT NULL), '[]') AS notifications`,
)
const SETTINGS_READ = sql('notification_settings_read', `SELECT notification_settings AS settings FROM api_users WHERE id = $1`)
const USER_VIEW = sql(
  'notification_user_view',
  `SELECT u.notification_settings AS settings,
          count(*) FILTER (WHERE a.channel = 'email')::int AS email,
          count(*) FILTER (WHERE a.channel = 'sms')::int AS sms
     FROM api_users u
     LEFT JOIN recipient_addresses a ON a.user_id = u.id AND a.suppressed_at IS NOT NULL
    WHERE u.id = $1
    GROUP BY u.id`,
)
const SETTINGS_SAVE = sql('notification_settings_save', `UPDATE api_users SET notification_settings = $2::json WHERE id = $1`)
const MESSAGE_AUDIENCE = sql(
  'message_audience',
  `SELECT a.task_id, a.settings, a.email, a.sms
     FROM (SELECT r.task_id, u.notification_settings AS settings,
                  r.email IS NOT NULL AND COALESCE((u.notification_settings->'email'->>'enabled')::boolean, false) AS email,
                  r.phone_hash IS NOT NULL AND COALESCE((u.notification_settings->'sms'->>'enabled')::boolean, false) AS sms
             FROM task_recipients r
             JOIN api_users u ON u.id = r.user_id
            WHERE r.task_id = ANY($1::bigint[])) a
    WHERE a.email OR a.sms`,
)
