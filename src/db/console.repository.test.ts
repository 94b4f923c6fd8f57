import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import { ConsoleRepository } from './console.repository'
import type { Database, Queryable } from './database'
import { RefreshRepository } from './refresh.repository'
import { lockClaimedTasks, scheduleFetched } from './refresh-writes'

// The console's reads and the per-carrier claim go through indexes, never a scan of every task or
// delivery (but the overview's counts, one pass cached for 30 s): their plans over 200,000 tasks of
// 40 users and 100,000 deliveries over 60 days, as ANALYZE sees them.

let database: TestDatabase
/** The repositories' own statements, explained instead of run. */
let explained: string[]

beforeAll(async () => {
  database = await createTestDatabase()
  const db = database.db
  await db.query(`INSERT INTO api_users (name, webhook_secret) SELECT 'u' || g, 'whsec_x' FROM generate_series(1, 40) g`)
  await db.query(
    `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, external_reference_no, standard_status, milestone, inactive_since)
     SELECT 1 + g % 40, CASE g % 3 WHEN 0 THEN 'FEDEX' WHEN 1 THEN 'UPARCEL' ELSE 'UPS' END, 'PLAN' || g, 'https://a.example/',
            CASE WHEN g % 2 = 0 THEN 'order-' || g ELSE '' END,
            CASE WHEN g % 100 < 80 THEN 'delivered' ELSE 'in_transit' END, CASE WHEN g % 100 < 80 THEN 'delivered' ELSE 'in_transit' END,
            CASE WHEN g % 100 < 80 THEN now() END
       FROM generate_series(1, 200000) g`,
  )
  await db.query(
    `UPDATE task_schedule s SET next_refresh_at = CASE WHEN t.tracking_number ~ '8[01]$' THEN now() - interval '1 minute' ELSE now() + interval '1 hour' END
       FROM tracking_tasks t WHERE t.id = s.task_id AND t.inactive_since IS NULL`,
  )
  await db.query(
    `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, status, next_attempt_at, created_at)
     SELECT t.id, t.user_id, 'msg_plan' || t.id, '{}', CASE WHEN t.id % 100 = 0 THEN 'failed' WHEN t.id % 100 = 1 THEN 'retry_wait' ELSE 'success' END,
            CASE WHEN t.id % 100 = 1 THEN now() + interval '1 hour' END, now() - make_interval(mins => (t.id % 86400)::int)
       FROM tracking_tasks t WHERE t.id % 2 = 0`,
  )
  await db.query('ANALYZE')
  const record = async (text: string, values?: unknown[]) => {
    const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)
    explained.push(rows.map((r) => r['QUERY PLAN']).join('\n'))
    return []
  }
  explainingTx = { query: async (text: string, values?: unknown[]) => ({ rows: await record(text, values) }) } as unknown as Queryable
  const explaining = {
    query: record,
    queryWithin: (_ms: number, text: string, values?: unknown[]) => record(text, values),
    transaction: (work: (tx: Queryable) => Promise<unknown>) => work(explainingTx),
  } as unknown as Database
  explain = async (run) => {
    explained = []
    await run(new ConsoleRepository(explaining), new RefreshRepository(explaining))
    return explained.join('\n')
  }
}, 120_000)
afterAll(() => database.close())

let explain: (run: (console: ConsoleRepository, refresh: RefreshRepository) => Promise<unknown>) => Promise<string>
/** A transaction whose statements are explained, not run. */
let explainingTx: Queryable

describe('plans', () => {
  it('finds a tracking number or a reference across users through each user’s own indexes', async () => {
    const plan = await explain((c) => c.searchTasks({ search: 'order-1234', limit: 51 }))
    expect(plan).toMatch(/tracking_tasks_user_number_carrier_key/)
    expect(plan).toMatch(/tracking_tasks_user_reference_idx/)
    expect(plan).not.toMatch(/Seq Scan on tracking_tasks/)
  })

  it('pages all tasks newest first by the primary key', async () => {
    const plan = await explain((c) => c.searchTasks({ beforeId: 150000, limit: 51 }))
    expect(plan).toMatch(/Index Scan Backward using tracking_tasks_pkey/)
    expect(plan).not.toMatch(/Seq Scan on tracking_tasks/)
  })

  it('reads the last 24 h and the failed deliveries user by user through their indexes', async () => {
    const lastDay = await explain((c) => c.lastDay())
    expect(lastDay).toMatch(/deliveries_user_idx/)
    expect(lastDay).not.toMatch(/Seq Scan on deliveries/)
    const failing = await explain((c) => c.failingDeliveries(100))
    expect(failing).toMatch(/deliveries_user_failed_idx/)
    expect(failing).toMatch(/deliveries_due_idx/)
    expect(failing).not.toMatch(/Seq Scan on deliveries/)
  })

  it('counts the backlog, and claims, measures the lag and finds the next full request, of each carrier through the index of task_schedule', async () => {
    for (const plan of [
      await explain((c) => c.refreshBacklog(['FEDEX', 'UPS'])),
      await explain((_c, r) => r.claimDue(explainingTx, 'UPS', ['UPS'], 300, 60_000)),
      await explain((_c, r) => r.claimDue(explainingTx, 'SEVENTEENTRACK', ['ROYALMAIL', 'POSTNL', 'DPD'], 300, 60_000)),
      await explain((_c, r) => r.refreshLagSeconds(['FEDEX', 'UPARCEL', 'UPS'])),
      await explain((_c, r) => r.dueInMs('FEDEX', ['FEDEX'], 30)),
    ]) {
      expect(plan).toMatch(/task_schedule_due_idx/)
      expect(plan).not.toMatch(/Seq Scan on (tracking_tasks|task_schedule)/)
    }
    // The tasks backing off after a failed fetch, through their own small index.
    expect(await explain((c) => c.refreshBacklog(['FEDEX', 'UPS']))).toMatch(/task_schedule_failing_idx/)
  })

  it("finds a claim's tasks by key when it applies or fails them, never through the due index (due times are shared by thousands)", async () => {
    const { rows } = await database.db.pool.query<{ task_id: number; due: string }>(
      `SELECT task_id, next_refresh_at::text AS due FROM task_schedule WHERE next_refresh_at IS NOT NULL ORDER BY task_id LIMIT 30`,
    )
    const claims = rows.map((r) => ({ id: r.task_id, dueAt: r.due, leaseToken: 'token' }))
    const failed = claims.map((c) => ({
      task: { ...c, carrierCode: 'FEDEX', trackingNumber: '', failures: 0, fingerprint: null, quietSince: new Date() },
      retryInMs: 1,
    }))
    // Each as the service runs it: a named statement, planned once for any values (a generic plan).
    const generic = async (run: (tx: Queryable) => Promise<unknown>) => {
      const client = await database.db.pool.connect()
      const plans: string[] = []
      try {
        await client.query('SET plan_cache_mode = force_generic_plan')
        await run({
          query: async (text: string, values?: unknown[]) => {
            await client.query('DEALLOCATE ALL')
            await client.query(`PREPARE explained AS ${text}`)
            // The values as literals: EXECUTE takes no bound parameters.
            const literal = (value: unknown) =>
              client.escapeLiteral(
                Array.isArray(value)
                  ? `{${value.map((v) => (typeof v === 'string' ? `"${v.replace(/["\\]/g, '\\$&')}"` : String(v))).join(',')}}`
                  : String(value),
              )
            const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE explained(${(values ?? []).map(literal).join(', ')})`)
            plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'))
            return { rows: [] }
          },
        } as unknown as Queryable)
      } finally {
        await client.query('RESET plan_cache_mode')
        client.release()
      }
      return plans.join('\n')
    }
    for (const plan of [
      await generic((tx) => lockClaimedTasks(tx, claims)),
      await generic((tx) =>
        scheduleFetched(
          tx,
          claims.map((claim) => ({ ...claim, nextRefreshInMs: 1000 })),
        ),
      ),
      await explain(() => lockClaimedTasks(explainingTx, claims)),
      await explain(() =>
        scheduleFetched(
          explainingTx,
          claims.map((claim) => ({ ...claim, nextRefreshInMs: 1000 })),
        ),
      ),
      await explain((_c, r) => r.releaseFailed(failed)),
    ]) {
      expect(plan).toMatch(/task_schedule_pkey/)
      expect(plan).not.toMatch(/task_schedule_due_idx|Seq Scan on (tracking_tasks|task_schedule)/)
    }
  })
})
