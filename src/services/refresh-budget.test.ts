import { Registry } from 'prom-client'
import { createRefreshService } from '../../test/support/worker-services'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { createCarrierSimulator } from '../carriers/registry'
import { UPS } from '../carriers/ups/ups.plugin'
import { USPS } from '../carriers/usps/usps.plugin'
import { requestsPerSecond } from '../domain/request-budget'
import { ServiceMetrics } from '../observability/metrics'
import type { CarrierSimulator } from '../simulator/simulator'
import { CarrierBudget } from './carrier-budget'
import { type CarrierChannel, type RefreshService } from './refresh.service'

// A carrier whose budget cannot pay for its active tasks at the poll interval (USPS: 60 requests
// an hour): the refresh claims only what the budget lets through, and spreads the tasks' fetches
// over the interval the budget allows, through the simulator and the real database.
const POLL_MS = 60_000
let t: TestApp
let sim: CarrierSimulator
let channel: CarrierChannel
let service: RefreshService
let userId: number

beforeAll(async () => {
  t = await createTestApp()
  userId = (await t.createUser()).userId
  sim = createCarrierSimulator({ stepMs: 60_000 })
  await sim.start()
  channel = {
    adapter: USPS.createAdapter({ baseUrl: sim.urlOf(USPS.simulator), credentials: { clientId: 'id', clientSecret: 's' }, timeoutMs: 2000 }),
    budget: new CarrierBudget(requestsPerSecond(USPS.env.requestBudget.fallback)),
    pollIntervalMs: POLL_MS,
  }
  service = createRefreshService(
    t.db,
    new Map([[USPS.code, channel]]),
    { pollIntervalMs: POLL_MS, expireAfterMs: 30 * 86_400_000, leaseMs: 60_000, claimLimit: 500, retryBaseMs: 30_000, retryMaxMs: 3_600_000 },
    new ServiceMetrics(new Registry()),
  )
})
afterAll(async () => {
  await channel.adapter.close()
  await sim.stop()
  await t.close()
})

describe('a budget of 60 requests an hour, ten active tasks, a one-minute poll', () => {
  it('fetches one task a round, schedules it ten minutes on, and claims nothing until the budget allows', async () => {
    for (let i = 0; i < 10; i++) {
      await t.services.subscriptions.subscribe(userId, {
        carrierCode: USPS.code,
        trackingNumber: `94001091042505329${i}`,
        callbackUrl: 'https://shop.example/hook',
      })
    }
    const first = await service.runRound(USPS.code)
    expect(first).toMatchObject({ claimed: 1, applied: 1, failed: 0 })
    const [fetched] = await t.db.query<{ in_s: number }>(
      `SELECT extract(epoch FROM next_refresh_at - now())::int AS in_s FROM task_schedule WHERE last_fetched_at IS NOT NULL`,
    )
    // Ten tasks at one request a minute: each is fetched every ten minutes, not every minute.
    expect(fetched!.in_s).toBeGreaterThan(590)
    expect(fetched!.in_s).toBeLessThanOrEqual(600)

    const second = await service.runRound(USPS.code)
    expect(second.claimed).toBe(0)
    expect(second.wakeInMs).toBeGreaterThan(55_000)
    const [{ due }] = (await t.db.query<{ due: number }>(`SELECT count(*)::int AS due FROM task_schedule WHERE next_refresh_at <= now()`)) as [{ due: number }]
    expect(due).toBe(9)
  })

  it('says the effective interval in GET /openapi/carriers', async () => {
    const { token } = await t.createUser()
    const res = await t.as(token, { method: 'GET', url: '/openapi/carriers' })
    const usps = (res.json().data.carriers as { carrierCode: string; requestBudget: string; effectiveIntervalSeconds: number }[]).find(
      (c) => c.carrierCode === USPS.code,
    )!
    // The test app polls every two hours: ten tasks fit in 60 an hour, so the poll interval stands.
    expect(usps).toMatchObject({ requestBudget: '60/hour', effectiveIntervalSeconds: 7200 })
  })
})

describe('a one-number carrier at 10 requests a second under a lease of 3 s', () => {
  it('claims no more than it can send within the lease, and applies every task it claimed', async () => {
    const ups: CarrierChannel = {
      adapter: UPS.createAdapter({ baseUrl: sim.urlOf(UPS.simulator), credentials: { clientId: 'id', clientSecret: 's' }, timeoutMs: 1000 }),
      budget: new CarrierBudget(10),
    }
    const leaseMs = 3_000
    const refresh = createRefreshService(
      t.db,
      new Map([[UPS.code, ups]]),
      { pollIntervalMs: POLL_MS, expireAfterMs: 30 * 86_400_000, leaseMs, claimLimit: 300, retryBaseMs: 30_000, retryMaxMs: 3_600_000 },
      new ServiceMetrics(new Registry()),
    )
    try {
      const { userId: owner } = await t.createUser()
      for (let i = 0; i < 60; i++) {
        await t.services.subscriptions.subscribe(owner, { carrierCode: UPS.code, trackingNumber: `LEASE${i}`, callbackUrl: 'https://shop.example/hook' })
      }
      // Ten seconds of this budget are a hundred requests, ten seconds of waiting: most would be
      // answered after the claim's lease ran out, and written nowhere.
      const round = await refresh.runRound(UPS.code)
      expect(round.claimed).toBeGreaterThan(0)
      expect(round.claimed).toBeLessThanOrEqual(10 + 10 * (leaseMs / 3 / 1000))
      expect(round).toMatchObject({ applied: round.claimed, failed: 0, skipped: 0 })
    } finally {
      await ups.adapter.close()
    }
  })
})
