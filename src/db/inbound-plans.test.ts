import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import type { Database, Queryable } from './database'
import { InboundRepository } from './inbound.repository'
import { PushSubscriptionRepository } from './push-subscription.repository'
import { RouteRegistrationRepository } from './route-registration.repository'

// The gateway's and the route's statements go through their indexes: their plans over 100,000
// pushes (a few waiting), 60,000 routed tasks among 200,000 scheduled, 400,000 events, their
// registrations and 400,000 older ones, as ANALYZE sees them.

let database: TestDatabase
let explained: string[]
let explaining: Database

beforeAll(async () => {
  database = await createTestDatabase()
  const db = database.db
  await db.query(
    `INSERT INTO inbound_pushes (source, digest, body, applied_at, outcome)
     SELECT '17track', md5(g::text), '\\x7b7d', CASE WHEN g % 1000 = 0 THEN NULL ELSE now() - make_interval(mins => g % 20000) END, 'applied'
       FROM generate_series(1, 100000) g`,
  )
  await db.query(
    `INSERT INTO route_tasks (task_id, carrier_code, tracking_number)
     SELECT g, CASE g % 3 WHEN 0 THEN 'ROYALMAIL' WHEN 1 THEN 'POSTNL' ELSE 'DPD' END, 'RM' || g || 'GB' FROM generate_series(1, 60000) g`,
  )
  await db.query(
    `INSERT INTO task_schedule (task_id, carrier_code, next_refresh_at)
     SELECT g, CASE WHEN g <= 60000 THEN (SELECT carrier_code FROM route_tasks WHERE task_id = g) ELSE 'FEDEX' END, now() + make_interval(mins => g % 600)
       FROM generate_series(1, 200000) g`,
  )
  await db.query(
    `INSERT INTO tracking_events (task_id, event_time, description, event_key)
     SELECT 1 + g % 200000, now() - make_interval(mins => g % 5000), 'scan', md5(g::text)
       FROM generate_series(1, 400000) g`,
  )
  await db.query(
    `INSERT INTO route_registrations (carrier_code, tracking_number, state, registered_at)
     SELECT carrier_code, tracking_number, CASE WHEN task_id % 10 = 0 THEN 'stopped' ELSE 'registered' END, now() FROM route_tasks`,
  )
  // Numbers registered before and stopped since: the registrations outgrow the active tasks.
  await db.query(
    `INSERT INTO route_registrations (carrier_code, tracking_number, state, registered_at, stopped_at)
     SELECT 'POSTNL', 'OLD' || g || 'NL', 'stopped', now() - interval '60 days', now() - interval '30 days' FROM generate_series(1, 400000) g`,
  )
  await db.query(
    `INSERT INTO push_subscriptions (carrier_code, tracking_number, state, subscribed_until)
     SELECT 'UPS', '1ZPS' || lpad(g::text, 14, '0'), 'subscribed', now() + interval '10 days' FROM generate_series(1, 50000) g`,
  )
  await db.query('ANALYZE')
  const record = async (text: string, values?: unknown[]) => {
    const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)
    explained.push(rows.map((r) => r['QUERY PLAN']).join('\n'))
    return []
  }
  const tx = { query: async (text: string, values?: unknown[]) => ({ rows: await record(text, values) }) } as unknown as Queryable
  explaining = {
    timeouts: db.timeouts,
    query: record,
    transaction: (work: (t: Queryable) => Promise<unknown>) => work(tx),
  } as unknown as Database
}, 120_000)
afterAll(() => database.close())

const explain = async (run: () => Promise<unknown>) => {
  explained = []
  await run()
  return explained.join('\n')
}

describe('plans', () => {
  it('claims the waiting pushes through their own small index, never the week of applied ones', async () => {
    const plan = await explain(() => explaining.transaction((t) => new InboundRepository(explaining).claim(t, 100, 60_000)))
    expect(plan).toMatch(/inbound_pushes_waiting_idx/)
    expect(plan).not.toMatch(/Seq Scan on inbound_pushes/)
    expect(await explain(() => new InboundRepository(explaining).prune())).toMatch(/inbound_pushes_applied_idx/)
  })

  it('finds a pushed number’s tasks by carrier and number', async () => {
    const plan = await explain(() => new InboundRepository(explaining).tasksOf([{ carrierCode: 'ROYALMAIL', trackingNumber: 'RM30GB' }]))
    expect(plan).toMatch(/route_tasks_number_idx/)
    expect(plan).not.toMatch(/Seq Scan on route_tasks/)
  })

  it('tells which of a poll’s numbers a carrier pushes by its key, never reading every subscription', async () => {
    const numbers = Array.from({ length: 50 }, (_, i) => `1ZPS${String(i * 7 + 1).padStart(14, '0')}`)
    const plan = await explain(() => new PushSubscriptionRepository(explaining).subscribed('UPS', numbers))
    expect(plan).toMatch(/push_subscriptions_pkey/)
    expect(plan).not.toMatch(/Seq Scan on push_subscriptions/)
  })

  it('claims between sweeps by key: new numbers among the tasks since the last round, renewals by their due time', async () => {
    const plan = await explain(() => new PushSubscriptionRepository(explaining).claim('UPS', 100, 86_400_000, 120_000, 59_000))
    expect(plan).toMatch(/push_subscriptions_renewal_idx/)
    expect(plan).not.toMatch(/Seq Scan on (push_subscriptions|route_tasks|task_schedule)/)
  })

  it('registers between sweeps by key: the numbers of the tasks since the last round, the retries by their index', async () => {
    const routed = ['ROYALMAIL', 'POSTNL', 'DPD']
    const links = await explain(() => new RouteRegistrationRepository(explaining).linkTasks(routed, 59_000))
    expect(links).not.toMatch(/Seq Scan on (route_tasks|task_schedule)/)
    const plan = await explain(() => new RouteRegistrationRepository(explaining).claimRegistrations(routed, 40, 120_000, 59_000))
    expect(plan).toMatch(/route_registrations_retry_idx/)
    expect(plan).not.toMatch(/Seq Scan on (route_registrations|route_tasks|task_schedule)/)
  })
})
