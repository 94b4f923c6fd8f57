import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import { PREDICTIONS_REMAKE } from './prediction-writes'
import { TASK_FULL } from './task-lifecycle.repository'
import { TRANSIT_COUNTS_BY_CARRIER, TRANSIT_COUNTS_BY_LANE } from './transit.repository'

// The transit times are read through their keys, never a whole table: plans over 20 users' year
// of day aggregates (about 200,000 rows) and their months, and 20,000 lanes, and the prediction's probe of a
// task's lanes.

let database: TestDatabase
let taskId: number

beforeAll(async () => {
  database = await createTestDatabase()
  const db = database.db
  await db.query(`INSERT INTO api_users (name, webhook_secret) SELECT 'u' || g, 'whsec_x' FROM generate_series(1, 20) g`)
  await db.query(
    `INSERT INTO transit_days (user_id, delivered_on, carrier_code, origin_country, origin_state, destination_country, destination_state,
                               transit_bucket, deliveries, with_eta, on_time, exceptions)
     SELECT 1 + g % 20, DATE '2026-01-01' + (g / 20 % 365), 'UPS', 'US', 'S' || (g / 7300 % 5), 'US', 'D' || (g % 6), 24 + g % 40, 3, 2, 1, 0
       FROM generate_series(1, 200000) g
     ON CONFLICT DO NOTHING`,
  )
  await db.query(
    `INSERT INTO transit_lanes (scope_user_id, carrier_code, origin_country, origin_state, destination_country, destination_state,
                                deliveries, p10_hours, median_hours, p90_hours)
     SELECT g % 21, c, 'US', 'S' || g, 'US', 'D' || g, 25, 20, 30, 40 FROM generate_series(1, 5000) g, unnest(ARRAY['UPS', 'FEDEX', 'USPS', 'DHL']) c`,
  )
  await db.query(
    `INSERT INTO transit_months (user_id, month, carrier_code, origin_country, origin_state, destination_country, destination_state,
                                 transit_bucket, deliveries, with_eta, on_time, exceptions)
     SELECT user_id, date_trunc('month', delivered_on)::date, carrier_code, origin_country, origin_state, destination_country, destination_state,
            transit_bucket, sum(deliveries), sum(with_eta), sum(on_time), sum(exceptions)
       FROM transit_days GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
  )
  await db.query(`ANALYZE transit_days; ANALYZE transit_months; ANALYZE transit_lanes`)
  const [task] = await db.query<{ id: number }>(
    `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, origin_address, destination_address, transit_started_at)
     VALUES (1, 'UPS', 'PLAN1', 'https://a.example/', '{"country":"US","state":"S1"}', '{"country":"US","state":"D1"}', now()) RETURNING id`,
  )
  taskId = task!.id
}, 120_000)
afterAll(() => database.close())

const explain = async (text: string, values: unknown[]) =>
  (await database.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).map((r) => r['QUERY PLAN']).join('\n')

describe('transit times', () => {
  it.each([
    ['per lane, a year', TRANSIT_COUNTS_BY_LANE, [1, true, null, null, null, null, null, null, null, null, null], ['months']],
    [
      'per lane, cut months of one carrier',
      TRANSIT_COUNTS_BY_LANE,
      [1, true, '2026-04-01', '2026-05-01', 'UPS', null, null, '2026-03-15', '2026-03-31', '2026-06-01', '2026-06-10'],
      ['months', 'days'],
    ],
    ['per carrier, a few days', TRANSIT_COUNTS_BY_CARRIER, [1, false, null, null, null, 'US', 'US', '2026-03-15', '2026-03-20', null, null], ['days']],
  ])('the analytics read a user’s months and days through the keys: %s', async (_name, text, values, tables) => {
    const plan = await explain(text, values)
    for (const table of tables) expect(plan).toMatch(new RegExp(`transit_${table}_pkey`))
    expect(plan).not.toMatch(/Seq Scan on transit_(days|months)/)
  })

  it('a prediction probes its lanes through transit_lanes’ key; the full task reads it off the task', async () => {
    const plan = await explain(PREDICTIONS_REMAKE, [taskId - 1, 5000])
    expect(plan).toMatch(/Index Scan using transit_lanes_pkey on transit_lanes/)
    expect(plan).not.toMatch(/Seq Scan on transit_lanes/)
    expect(await explain(TASK_FULL, [1, taskId])).not.toMatch(/transit_lanes/)
  })
})
