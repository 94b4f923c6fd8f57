import { TASKS_DUE } from '../db/notifier'
import { FEDEX } from '../carriers/fedex/fedex.plugin'
import { createRefreshService } from '../../test/support/worker-services'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { FedexClient } from '../carriers/fedex/fedex.client'
import { ServiceMetrics } from '../observability/metrics'
import { CarrierBudget } from '../services/carrier-budget'
import { createCarrierSimulator } from '../carriers/registry'
import { createTestApp } from '../../test/support/test-app'
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
