import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCarrierSimulator } from '../../src/carriers/registry'
import type { CarrierSimulator } from '../../src/simulator/simulator'
import { startService, type ServiceProcess } from '../support/service-process'
import { simulatorEnv } from '../support/simulator-env'
import { createTestDatabase, type TestDatabase } from '../support/test-database'
import { waitFor } from '../support/wait-for'

// Several worker processes on one database: the run's test server (on the embedded run, itself an
// embedded PostgreSQL server).
describe('two refresh worker processes on PostgreSQL', () => {
  let database: TestDatabase
  let sim: CarrierSimulator
  let workers: ServiceProcess[] = []

  beforeAll(async () => {
    database = await createTestDatabase()
    // Stories stand still (a stage a day): every task's first fetch is its only change.
    sim = createCarrierSimulator({ stepMs: 86_400_000 })
    await sim.start()
    const env = {
      DATABASE_URL: database.connectionString,
      ROLE: 'worker',
      REFRESH_POLL_MS: '200',
      REFRESH_CLAIM_LIMIT: '40',
      POLL_INTERVAL_SECONDS: '86400',
      ...simulatorEnv(sim),
    }
    workers = await Promise.all([startService(env), startService(env)])
  }, 120_000)

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()))
    await sim.stop()
    await database.close()
  })

  async function fetchedByWorker(worker: ServiceProcess): Promise<number> {
    const text = await (await fetch(`${worker.baseUrl}/metrics`)).text()
    return [...text.matchAll(/^tracking_numbers_fetched_total\{carrier="\w+",result="found"\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0)
  }

  it('share 500 tasks without fetching any twice', async () => {
    const { db } = database
    const [user] = await db.query<{ id: number }>(`INSERT INTO api_users (name, webhook_secret) VALUES ('load', 'whsec_x') RETURNING id`)
    // Five batches straight into the table: no API process sends a NOTIFY, the workers' polling finds them.
    for (let b = 0; b < 5; b++) {
      await db.query(
        `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url)
           SELECT $1, CASE WHEN g % 2 = 0 THEN 'FEDEX' ELSE 'UPARCEL' END, 'DLW' || $2 || '-' || g, 'https://a.example/'
             FROM generate_series(1, 100) g`,
        [user!.id, b],
      )
    }
    await waitFor(
      async () => (await db.query<{ pending: number }>('SELECT count(*)::int AS pending FROM task_schedule WHERE last_fetched_at IS NULL'))[0]!.pending === 0,
      {
        timeoutMs: 60_000,
        intervalMs: 100,
        what: 'every task to be fetched',
      },
    )
    const fetches = sim.stats().fetchesByNumber
    const numbers = Object.keys(fetches).filter((n) => n.startsWith('DLW'))
    expect(numbers).toHaveLength(500)
    expect(numbers.filter((n) => fetches[n] !== 1)).toEqual([])
    const [a, b] = await Promise.all(workers.map(fetchedByWorker))
    expect(a! + b!).toBe(500)
    expect(a).toBeGreaterThan(0)
    expect(b).toBeGreaterThan(0)
    const [notified] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries`)
    expect(notified!.n).toBe(500)
  }, 90_000)

  it('serve only the operations endpoints', async () => {
    const health = (await (await fetch(`${workers[0]!.baseUrl}/healthz`)).json()) as { data: unknown }
    expect(health.data).toMatchObject({ database: 'postgres', carriers: { FEDEX: 'live', UPARCEL: 'live' } })
    expect((await fetch(`${workers[0]!.baseUrl}/openapi/tracking-subscriptions?taskId=1`)).status).toBe(404)
    const metrics = await (await fetch(`${workers[0]!.baseUrl}/metrics`)).text()
    expect(metrics).toMatch(/carrier_fetches_total\{carrier="FEDEX",outcome="success"\}/)
    expect(metrics).toMatch(/refresh_lag_seconds/)
  })
})
