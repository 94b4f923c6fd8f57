import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import { logStatement, REPLAY_PICK_SQL } from './delivery-log.repository'

// The account log and the bulk replay read a user's deliveries through their own indexes, never
// the whole table: plans over 200,000 deliveries of 20 users, mostly successful.

let database: TestDatabase
const USER = 1

beforeAll(async () => {
  database = await createTestDatabase()
  const db = database.db
  await db.query(`INSERT INTO api_users (name, webhook_secret) SELECT 'u' || g, 'whsec_x' FROM generate_series(1, 20) g`)
  await db.query(
    `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url) SELECT 1 + g % 20, 'FEDEX', 'LOG' || g, 'https://a.example/' FROM generate_series(1, 2000) g`,
  )
  await db.query(
    `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, status, created_at)
     SELECT t.id, t.user_id, 'msg_log' || g, '{}', CASE WHEN g % 50 = 0 THEN 'failed' ELSE 'success' END, now() - make_interval(mins => g)
       FROM generate_series(1, 200000) g JOIN tracking_tasks t ON t.tracking_number = 'LOG' || (1 + g % 2000)`,
  )
  await db.query('ANALYZE deliveries')
}, 120_000)
afterAll(() => database.close())

const explain = async (text: string, values: unknown[]) =>
  (await database.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).map((r) => r['QUERY PLAN']).join('\n')

describe('the delivery log reads an index of the user’s deliveries', () => {
  it.each([
    ['newest first', {}],
    ['a window', { createdFrom: new Date(Date.now() - 86_400_000), createdTo: new Date() }],
    ['failed ones', { status: 'failed' as const }],
  ])('%s', async (_name, filters) => {
    const { text, values } = logStatement(USER, filters, 20, undefined)
    const plan = await explain(text, values)
    expect(plan).toMatch(/deliveries_user_(failed_)?idx/)
    expect(plan).not.toMatch(/Seq Scan on deliveries/)
  })

  it('the bulk replay picks a window’s failed deliveries through their partial index', async () => {
    const plan = await explain(REPLAY_PICK_SQL, [USER, new Date(Date.now() - 86_400_000), new Date(), null, 10_000])
    expect(plan).toMatch(/deliveries_user_failed_idx/)
    expect(plan).not.toMatch(/Seq Scan on deliveries/)
  })
})
