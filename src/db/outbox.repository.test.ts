import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import { CHANNEL_CLAIMS } from './outbox-channels.sql'
import './outbox.repository'
import './recipient.repository'
import { registeredStatements } from './statements'

// The claim's plan, on a burst of due deliveries (callbacks and endpoints), before the table has
// statistics and after: the due index in due order, up to the claim's limit. A claim that read
// and sorted every due row instead (a planner's guess of how many rows a filter keeps) cost three
// times as much a claim, and a third of the webhooks a second.
let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
  const { db } = database
  await db.query(`INSERT INTO api_users (name, webhook_secret) VALUES ('plan', 'whsec_x')`)
  await db.query(
    `INSERT INTO webhook_endpoints (user_id, url, event_types, secret) SELECT 1, 'https://a.example/ep' || g, ARRAY['tracking.events_added'], 'whsec_x' FROM generate_series(1, 3) g`,
  )
  await db.query(
    `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url) SELECT 1, 'FEDEX', 'P' || g, 'https://a.example/cb' FROM generate_series(1, 5000) g`,
  )
  await db.query(
    `INSERT INTO deliveries (task_id, user_id, endpoint_id, target, webhook_id, payload, next_attempt_at)
     SELECT t.id, 1, e.id, 'endpoint', 'e' || t.id || '_' || e.id, '{}', now() - interval '1 second' FROM tracking_tasks t CROSS JOIN webhook_endpoints e`,
  )
  await db.query(
    `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, next_attempt_at) SELECT id, 1, 'c' || id, '{}', now() - interval '1 second' FROM tracking_tasks`,
  )
  // A recipient for every task, and a message to each, due.
  await db.query(`INSERT INTO task_recipients (task_id, user_id, email, email_hash) SELECT id, 1, 'c' || id || '@example.com', 'h' || id FROM tracking_tasks`)
  await db.query(
    `INSERT INTO recipient_addresses (user_id, channel, address_hash, token, language) SELECT 1, 'email', 'h' || task_id, 't' || task_id, 'en' FROM task_recipients`,
  )
  await db.query(
    `INSERT INTO deliveries (task_id, user_id, channel, target, trigger, event_type, webhook_id, payload, next_attempt_at)
     SELECT id, 1, 'email', 'recipient', 'delivered', 'notification.delivered', 'm' || id, '{"trigger":"delivered"}', now() - interval '1 second' FROM tracking_tasks`,
  )
  await db.query(`UPDATE api_users SET notification_settings = '{"email": {"enabled": true}}'`)
}, 60_000)
afterAll(() => database.close())

async function claimPlan(fullHost: boolean): Promise<string> {
  const params = [256, 10_000, 8, fullHost ? ['a.example'] : [], 'plan-lease', fullHost ? [] : ['a.example'], fullHost ? [] : [64], 96]
  const rows = await database.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${CHANNEL_CLAIMS.webhook.text}`, params)
  return rows.map((r) => r['QUERY PLAN']).join('\n')
}

describe("the messages' claims and plan", () => {
  it('claims from the due index, and finds the recipients of a fetch by their key', async () => {
    for (const analyzed of [false, true]) {
      if (analyzed) await database.db.query('ANALYZE')
      for (const channel of ['email', 'sms'] as const) {
        const claim = (
          await database.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${CHANNEL_CLAIMS[channel].text}`, [64, 10_000, 64, [], 'plan-lease', [], [], 64])
        )
          .map((r) => r['QUERY PLAN'])
          .join('\n')
        expect(claim, `${channel}, analyzed: ${analyzed}`).toMatch(/Index Scan using deliveries_due_idx on deliveries/)
        expect(claim, channel).not.toMatch(/Seq Scan on (deliveries|task_recipients|recipient_addresses|tracking_tasks)/)
      }
      const audience = (
        await database.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${registeredStatements().get('message_audience')!.texts[0]!.text}`, [[1, 2, 3, 4, 5]])
      )
        .map((r) => r['QUERY PLAN'])
        .join('\n')
      expect(audience, `analyzed: ${analyzed}`).toMatch(/Index Scan (using|on) task_recipients_pkey/)
      expect(audience).not.toMatch(/Seq Scan on task_recipients/)
      // A reply of STOP, and a status callback, find their rows by key.
      const plan = async (name: string, params: unknown[]) =>
        (await database.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${registeredStatements().get(name)!.texts[0]!.text}`, params))
          .map((r) => r['QUERY PLAN'])
          .join('\n')
      expect(await plan('recipient_address_stop_everywhere', ['sms', 'hash', 'replied STOP'])).toMatch(/Index Scan (using|on) recipient_addresses_hash_idx/)
      const reported = await plan('outbox_provider_reported', ['id', 'sent', ['sent'], [3], null])
      expect(reported).toMatch(/Index Scan using deliveries_webhook_id_key/)
      expect(reported).not.toMatch(/Seq Scan on deliveries/)
    }
  })
})

describe("the webhook channel's claim", () => {
  it('reads the due index in due order, with statistics and without', async () => {
    for (const analyzed of [false, true]) {
      if (analyzed) await database.db.query('ANALYZE deliveries')
      for (const fullHost of [false, true]) {
        const plan = await claimPlan(fullHost)
        expect(plan, `analyzed: ${analyzed}, a host full: ${fullHost}`).toMatch(/Index Scan using deliveries_due_idx on deliveries/)
        expect(plan).not.toMatch(/Bitmap Heap Scan on deliveries|Seq Scan on deliveries/)
      }
    }
  })
})
