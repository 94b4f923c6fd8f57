import type { MessageChannel } from '../domain/notifications'
import type { Channel, ChannelDetails, MessageDetails } from '../domain/outbox'
import type { Language } from '../domain/tracking-page'
import type { Milestone } from '../domain/milestones'
import { addressOf, targetOpen } from './outbox-targets.sql'

/**
 * Each channel's claim (outbox.repository.ts): what keys its per-target gate, and what its sender
 * needs besides the address and the body (domain/outbox.ts, ChannelDetails). A new channel gives
 * its entry here (the typecheck says so).
 */

interface ChannelClaimSql<C extends Channel> {
  /** The gate's key of an address, in SQL. */
  gateOf(address: string): string
  /** The sender's details, each its name and its SQL over the picked row `p` (id, task_id, user_id, endpoint_id, target, channel) and its joins. */
  columns: Record<string, string>
  joins: string
  details(row: Record<string, unknown>): ChannelDetails[C]
}

// The host part of a URL, for per-host concurrency (userinfo and port dropped).
const hostOf = (url: string) => `lower(substring(${url} from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(\\[[0-9A-Fa-f:.]*\\]|[^:/?#]*)'))`

// What every message's claim reads (domain/outbox.ts, MessageDetails): its user's settings, its
// task, its recipient, and the recipient's address on the channel (by its keyed hash).
const MESSAGE_COLUMNS = {
  recipient_user: 'p.user_id',
  recipient_language: 'r.language',
  from_name: `u.notification_settings->'email'->>'fromName'`,
  suppressed: 'a.suppressed_at IS NOT NULL',
  page_token: 't.page_token',
}
const messageJoins = (channel: MessageChannel, hash: 'email_hash' | 'phone_hash') => `JOIN api_users u ON u.id = p.user_id
       JOIN tracking_tasks t ON t.id = p.task_id
       LEFT JOIN task_recipients r ON r.task_id = p.task_id
       LEFT JOIN recipient_addresses a ON a.user_id = p.user_id AND a.channel = '${channel}' AND a.address_hash = r.${hash}`
const messageDetails = (row: Record<string, unknown>): MessageDetails => ({
  userId: Number(row.recipient_user),
  language: (row.recipient_language as Language | null) ?? null,
  fromName: (row.from_name as string | null) ?? null,
  suppressed: row.suppressed === true,
  pageToken: row.page_token as string,
})

const CHANNEL_SQL: { [C in Channel]: ChannelClaimSql<C> } = {
  // A callback delivery is signed with its user's secrets, an endpoint's with the endpoint's.
  webhook: {
    gateOf: hostOf,
    columns: {
      secret: 'COALESCE(e.secret, u.webhook_secret)',
      previous_secret: `CASE WHEN e.id IS NOT NULL THEN CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END
                 WHEN u.previous_webhook_secret_expires_at > now() THEN u.previous_webhook_secret END`,
    },
    joins: `JOIN api_users u ON u.id = p.user_id
       LEFT JOIN webhook_endpoints e ON e.id = p.endpoint_id`,
    details: (row) => ({ secrets: row.previous_secret ? [row.secret as string, row.previous_secret as string] : [row.secret as string] }),
  },
  // Every message goes through the one relay: one gate, whose limit adapts to the relay's answers.
  email: {
    gateOf: () => `'smtp'`,
    columns: {
      ...MESSAGE_COLUMNS,
      recipient_name: 'r.name',
      reply_to: `u.notification_settings->'email'->>'replyTo'`,
      unsubscribe_token: 'a.token',
    },
    joins: messageJoins('email', 'email_hash'),
    details: (row) => ({
      ...messageDetails(row),
      name: (row.recipient_name as string | null) ?? null,
      replyTo: (row.reply_to as string | null) ?? null,
      unsubscribeToken: (row.unsubscribe_token as string | null) ?? null,
    }),
  },
  // Every text goes through the one provider: one gate.
  sms: {
    gateOf: () => `'sms'`,
    columns: { ...MESSAGE_COLUMNS, milestone: 't.milestone' },
    joins: messageJoins('sms', 'phone_hash'),
    details: (row) => ({ ...messageDetails(row), milestone: row.milestone as Milestone }),
  },
}

/**
 * A channel's claim. Parameters: $1 the most to claim, $2 the lease in ms, $3 the room of a gate
 * not listed, $4 the gates with no room, $5 the lease token, $6/$7 the listed gates and their room,
 * $8 the due rows to look at. The due rows are read in due order, from the outbox alone. The
 * planner may read every due row and sort them (statistics lag behind a burst), so what a row
 * costs before the sort is kept small: its target and gate (a regular expression for a URL's
 * host) are looked up only when some gate has no room, and otherwise for the rows taken; the
 * sender's details for the picked ones. A target that takes nothing now (a disabled endpoint) has
 * its deliveries wait (disabling failed those pending then).
 */
function claimText<C extends Channel>(channel: C, c: ChannelClaimSql<C>): string {
  const details = Object.keys(c.columns)
  return `WITH due AS (
     SELECT d.id, d.task_id, d.user_id, d.target, d.channel, d.endpoint_id, d.next_attempt_at
       FROM deliveries d
      WHERE d.channel = '${channel}'
        AND d.status IN ('pending', 'retry_wait')
        AND d.next_attempt_at <= now()
        AND ${targetOpen('d')}
        AND (cardinality($4::text[]) = 0 OR ${c.gateOf(addressOf('d'))} <> ALL($4::text[]))
      ORDER BY d.next_attempt_at
      LIMIT $8
      FOR UPDATE SKIP LOCKED
   ),
   gated AS (
     SELECT d.id, d.task_id, d.user_id, d.target, d.channel, d.endpoint_id, d.next_attempt_at, target.address, ${c.gateOf('target.address')} AS gate_key
       FROM due d
       CROSS JOIN LATERAL (SELECT ${addressOf('d')} AS address) target
   ),
   picked AS (
     SELECT ranked.*
       FROM (SELECT *, row_number() OVER (PARTITION BY gate_key ORDER BY next_attempt_at) AS nth FROM gated) ranked
       LEFT JOIN unnest($6::text[], $7::int[]) AS r (gate_key, room) ON r.gate_key = ranked.gate_key
      WHERE ranked.nth <= COALESCE(r.room, $3)
      ORDER BY ranked.next_attempt_at
      LIMIT $1
   ),
   detailed AS (
     SELECT p.id, p.address, p.gate_key, ${details.map((name) => `${c.columns[name]} AS ${name}`).join(',\n            ')}
       FROM picked p
       ${c.joins}
   )
   UPDATE deliveries d
      SET status = 'sending',
          lease_owner = $5,
          lease_until = now() + make_interval(secs => $2::float8 / 1000),
          attempt_started_at = now(),
          updated_at = now()
     FROM detailed p
    WHERE d.id = p.id
    RETURNING d.id, d.task_id, d.webhook_id, d.payload::text AS payload, p.address, p.gate_key, d.attempt_count, d.cycle_start_attempt,
              ${details.map((name) => `p.${name}`).join(', ')}`
}

/** Each channel's claim statement and how its rows' details are read. */
export const CHANNEL_CLAIMS = Object.fromEntries(
  (Object.keys(CHANNEL_SQL) as Channel[]).map((channel) => [
    channel,
    { text: claimText(channel, CHANNEL_SQL[channel]), details: CHANNEL_SQL[channel].details },
  ]),
) as { [C in Channel]: { text: string; details: (row: Record<string, unknown>) => ChannelDetails[C] } }
