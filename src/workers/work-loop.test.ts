import { TASKS_DUE } from '../db/notifier'
import { FEDEX } from '../carriers/fedex/fedex.plugin'
import { createRefreshService } from '../../test/support/worker-services'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FedexClient } from '../carriers/fedex/fedex.client'
import { ServiceMetrics } from '../observability/metrics'
import { CarrierBudget } from '../services/carrier-budget'
import { CarrierSimulator } from '../simulator/simulator'
import { createCarrierSimulator } from '../carriers/registry'
import { startService, type ServiceProcess } from '../../test/support/service-process'
import { simulatorEnv } from '../../test/support/simulator-env'
import { createTestApp } from '../../test/support/test-app'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import { WorkLoop } from './work-loop'
import { waitFor } from '../../test/support/wait-for'
import { parseDocument } from '../domain/task-document'

describe('the refresh worker loop', () => {
  it('fetches a new task within seconds, drains full rounds, and stops cleanly', async () => {
    const t = await createTestApp()
    const sim = createCarrierSimulator({ stepMs: 0 })
    await sim.start()
    const fedex = new FedexClient({ baseUrl: sim.urlOf(FEDEX.simulator), clientId: 'id', clientSecret: 's', timeoutMs: 1000 })
    const service = createRefreshService(
      t.db,
      new Map([['FEDEX', { adapter: fedex, budget: new CarrierBudget(100) }]]),
      { pollIntervalMs: 3_600_000, expireAfterMs: 86_400_000 * 30, leaseMs: 60_000, claimLimit: 10, retryBaseMs: 1000, retryMaxMs: 10_000 },
      new ServiceMetrics(new Registry()),
    )
    // Poll every 500 ms (on PostgreSQL, LISTEN wakes it sooner).
    const worker = new WorkLoop(
      'refresh',
      async () => (await service.runRound()).claimed >= 10,
      { pollMs: 500, listen: (wake) => t.db.listen(TASKS_DUE, wake) },
      { warn: () => {} },
    )
    try {
      await worker.start()
      t.wakeups.onTasksDue = () => worker.wake()
      const { userId } = await t.createUser()
      const items = Array.from({ length: 35 }, (_, i) => ({ carrierCode: 'FEDEX', trackingNumber: `DLLOOP${i}`, callbackUrl: 'https://a.example/' }))
      const started = Date.now()
      await t.services.subscriptions.subscribeBatch(userId, { items })
      await waitFor(async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM task_schedule WHERE last_fetched_at IS NULL'))[0]!.n === 0, {
        what: 'every task to be fetched',
      })
      // 35 tasks at 10 a round: the worker went on by itself instead of waiting for the next tick.
      expect(Date.now() - started).toBeLessThan(3000)
      expect(parseDocument(await t.services.subscriptions.find(userId, { trackingNumber: 'DLLOOP7' })).standardStatus).toBe('delivered')
    } finally {
      await worker.stop()
      await fedex.close()
      await sim.stop()
      await t.close()
    }
  })
})

describe('a round that says when work falls due', () => {
  it('is run again then, well before the next poll tick', async () => {
    const rounds: number[] = []
    const loop = new WorkLoop(
      'soon',
      async () => {
        rounds.push(Date.now())
        return rounds.length === 1 ? { more: false, wakeInMs: 200 } : false
      },
      { pollMs: 60_000 },
      { warn: () => {} },
    )
    try {
      await loop.start()
      await waitFor(() => rounds.length === 2, { what: 'the round asked for' })
      expect(rounds[1]! - rounds[0]!).toBeGreaterThanOrEqual(190)
    } finally {
      await loop.stop()
    }
  })

  it('fetches a full FedEx request the moment it is due, though the poll is a minute away', async () => {
    const t = await createTestApp()
    const sim = createCarrierSimulator({ stepMs: 0 })
    await sim.start()
    const fedex = new FedexClient({ baseUrl: sim.urlOf(FEDEX.simulator), clientId: 'id', clientSecret: 's', timeoutMs: 1000 })
    const service = createRefreshService(
      t.db,
      new Map([['FEDEX', { adapter: fedex, budget: new CarrierBudget(100) }]]),
      { pollIntervalMs: 3_600_000, expireAfterMs: 86_400_000 * 30, leaseMs: 60_000, claimLimit: 100, retryBaseMs: 1000, retryMaxMs: 10_000 },
      new ServiceMetrics(new Registry()),
    )
    const worker = new WorkLoop('refresh', () => service.runRound('FEDEX'), { pollMs: 60_000 }, { warn: () => {} })
    try {
      const { userId } = await t.createUser()
      await t.db.query(
        `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url)
         SELECT $1, 'FEDEX', 'DLSOON' || g, 'https://a.example/' FROM generate_series(1, 30) g`,
        [userId],
      )
      await t.db.query(
        `UPDATE task_schedule s SET next_refresh_at = now() + interval '1 second' FROM tracking_tasks t WHERE t.id = s.task_id AND t.user_id = $1`,
        [userId],
      )
      await worker.start()
      // The first round finds nothing due and learns when thirty numbers will be.
      await waitFor(async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM task_schedule WHERE last_fetched_at IS NULL'))[0]!.n === 0, {
        what: 'the thirty tasks to be fetched',
      })
      expect(sim.stats().carriers.fedex!.trackRequests).toBe(1)
    } finally {
      await worker.stop()
      await fedex.close()
      await sim.stop()
      await t.close()
    }
  })
})

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
