import type pg from 'pg'
import { createRefreshService } from './workers'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FEDEX } from '../carriers/fedex/fedex.plugin'
import { createCarrierSimulator } from '../carriers/registry'
import { RefreshRepository } from '../db/refresh.repository'
import { ServiceMetrics } from '../observability/metrics'
import { CarrierBudget } from '../services/carrier-budget'
import type { CarrierSimulator } from '../simulator/simulator'
import { WorkLoop } from '../workers/work-loop'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { waitFor } from '../../test/support/wait-for'

// ROLE=all: the console's services and the refresh worker in one process, wired as server.ts wires
// them (a change that makes a task due wakes the worker's loop). Every statement is watched on its
// connection: which checkout of the pool sent it. A unit of work's transaction must hold its own
// statements and nobody else's, and no statement may run on a connection nobody has checked out.

interface Sent {
  checkout: number | undefined
  text: string
}

let t: TestApp
let sim: CarrierSimulator
let loop: WorkLoop
let rounds = 0
const sent: Sent[] = []
const adapter = () => FEDEX.createAdapter({ baseUrl: sim.urlOf(FEDEX.simulator), credentials: { clientId: 'id', clientSecret: 'secret' }, timeoutMs: 2000 })

beforeAll(async () => {
  t = await createTestApp()
  sim = createCarrierSimulator({ stepMs: 60_000 })
  await sim.start()
  const pool = t.db.pool
  const checkouts = new Map<pg.PoolClient, number>()
  let next = 0
  const watch = (client: pg.PoolClient) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    ;(client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const config = args[0] as string | { text: string }
      sent.push({ checkout: checkouts.get(client), text: typeof config === 'string' ? config : config.text })
      return query(...args)
    }
  }
  pool.on('connect', watch)
  pool.on('acquire', (client) => checkouts.set(client, ++next))
  pool.on('release', (_error, client) => checkouts.delete(client))
  const repository = new RefreshRepository(t.db)
  const refresh = createRefreshService(
    t.db,
    new Map([['FEDEX', { adapter: adapter(), budget: new CarrierBudget(1000) }]]),
    { pollIntervalMs: 3_600_000, expireAfterMs: 30 * 86_400_000, leaseMs: 60_000, claimLimit: 100, retryBaseMs: 30_000, retryMaxMs: 3_600_000 },
    new ServiceMetrics(new Registry(), { refreshLagSeconds: () => repository.refreshLagSeconds(['FEDEX']) }),
  )
  loop = new WorkLoop(
    'refresh FEDEX',
    async () => {
      try {
        return (await refresh.runRound('FEDEX')).more
      } finally {
        rounds++
      }
    },
    { pollMs: 3_600_000 },
    { warn: () => {} },
  )
  t.wakeups.onTasksDue = () => loop.wake()
  await loop.start()
  await waitFor(() => rounds >= 1, { what: 'the first round' })
})
afterAll(async () => {
  await loop.stop()
  await sim.stop()
  await t.close()
})

describe('units of work under ROLE=all', () => {
  it("a console refresh commits alone: the worker it wakes runs on connections of its own, never on the console's", async () => {
    const { userId } = await t.createUser('leak')
    const { taskId } = await t.services.subscriptions.subscribe(userId, {
      carrierCode: 'FEDEX',
      trackingNumber: '794843185271',
      callbackUrl: 'https://shop.example/hook',
    })
    await waitFor(async () => (await t.db.query(`SELECT 1 FROM task_schedule WHERE task_id = $1 AND last_fetched_at IS NOT NULL`, [taskId])).length === 1, {
      what: 'the first fetch',
    })
    // The loop is idle now; the console's refresh wakes it.
    const before = rounds
    sent.length = 0
    await t.services.console.refreshTask(taskId, { kind: 'admin_token', address: '127.0.0.1' })
    await waitFor(() => rounds > before, { what: 'the round the refresh woke' })
    await waitFor(async () => (await t.db.query(`SELECT 1 FROM refresh_claims`)).length === 0, { what: 'the round to end' })

    const audited = sent.find((s) => s.text.includes('INSERT INTO audit_log'))
    expect(audited?.checkout).toBeDefined()
    // The console's transaction holds BEGIN, its owner lookup and request, the audit entry and
    // COMMIT: no claim of the worker's, no apply.
    const unit = sent.filter((s) => s.checkout === audited!.checkout).map((s) => s.text)
    expect(unit.filter((text) => /refresh_claim/.test(text))).toEqual([])
    expect(unit.at(-1)).toBe('COMMIT')
    // Every statement went out on a connection its sender had checked out of the pool.
    expect(sent.filter((s) => s.checkout === undefined).map((s) => s.text.slice(0, 80))).toEqual([])
  })
})
