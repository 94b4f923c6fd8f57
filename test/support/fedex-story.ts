import { Registry } from 'prom-client'
import { expect } from 'vitest'
import { FedexClient } from '../../src/carriers/fedex/fedex.client'
import { FEDEX } from '../../src/carriers/fedex/fedex.plugin'
import { createCarrierSimulator } from '../../src/carriers/registry'
import type { Database } from '../../src/db/database'
import { createRefreshService } from '../../src/main/workers'
import { ServiceMetrics } from '../../src/observability/metrics'
import { CarrierBudget } from '../../src/services/carrier-budget'
import type { RefreshService } from '../../src/services/refresh.service'
import type { TestApp } from './test-app'

/** A story stage's length on the simulator's clock. */
const STEP = 60_000

/**
 * FedEx's stories on the project's simulator, for tests that follow a shop's parcel through the
 * refresh (the customer's messages): the simulator and its FedEx client, a refresh service over
 * FedEx alone, and the simulator's clock, moved one stage at a time.
 */
export class FedexStory {
  private clock = Date.now()
  private readonly sim = createCarrierSimulator({ stepMs: STEP, now: () => this.clock })
  private fedex: FedexClient | undefined

  async start(): Promise<void> {
    await this.sim.start()
    this.fedex = new FedexClient({ baseUrl: this.sim.urlOf(FEDEX.simulator), clientId: 'id', clientSecret: 's', timeoutMs: 2000 })
  }

  async stop(): Promise<void> {
    await this.fedex?.close()
    await this.sim.stop()
  }

  /** A refresh service over FedEx alone, on the simulator. */
  refresh(db: Database): RefreshService {
    return createRefreshService(
      db,
      new Map([[FEDEX.code, { adapter: this.fedex!, budget: new CarrierBudget(1000) }]]),
      { pollIntervalMs: 3_600_000, expireAfterMs: 30 * 86_400_000, leaseMs: 30_000, claimLimit: 100, retryBaseMs: 100, retryMaxMs: 200 },
      new ServiceMetrics(new Registry()),
    )
  }

  /** The next fetch sees one stage more of every story. */
  next(): void {
    this.clock += STEP
  }

  /** `number` subscribed to FedEx by the shop of `token`, with `recipient`: its task id. */
  async subscribe(t: TestApp, token: string, number: string, recipient: object): Promise<number> {
    const res = await t.as(token, {
      method: 'POST',
      url: '/openapi/tracking-subscriptions',
      payload: { carrierCode: FEDEX.code, trackingNumber: number, callbackUrl: 'https://shop.example/hook', recipient },
    })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data.taskId
  }
}
