import { Registry } from 'prom-client'
import { createRefreshService, createWebhookDelivery } from '../support/worker-services'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FedexClient } from '../../src/carriers/fedex/fedex.client'
import { OutboxRepository } from '../../src/db/outbox.repository'
import { ServiceMetrics } from '../../src/observability/metrics'
import { CarrierBudget } from '../../src/services/carrier-budget'
import { createCarrierSimulator } from '../../src/carriers/registry'
import { WebhookHttp } from '../../src/webhooks/webhook-http'
import { freePort } from '../support/service-process'
import { createTestApp, type TestApp } from '../support/test-app'
import { waitFor } from '../support/wait-for'
import { parseDocument } from '../../src/domain/task-document'

/** A carrier that is down, slow or answering garbage; a receiver down for the whole schedule. */
let t: TestApp
let userId: number
const metrics = new ServiceMetrics(new Registry())

beforeAll(async () => {
  t = await createTestApp()
  userId = (await t.createUser()).userId
})
afterAll(() => t.close())

describe('carrier outage', () => {
  it('changes nothing while the carrier is down, slow or answering garbage, and resumes when it is back', async () => {
    const port = await freePort()
    const sim = createCarrierSimulator({ port, stepMs: 0, timeoutDelayMs: 3000 })
    const fedex = new FedexClient({ baseUrl: `http://127.0.0.1:${port}/fedex`, clientId: 'id', clientSecret: 's', timeoutMs: 500 })
    const service = createRefreshService(
      t.db,
      new Map([['FEDEX', { adapter: fedex, budget: new CarrierBudget(100) }]]),
      { pollIntervalMs: 3_600_000, expireAfterMs: 30 * 86_400_000, leaseMs: 60_000, claimLimit: 100, retryBaseMs: 10, retryMaxMs: 20 },
      metrics,
    )
    const numbers = ['DLOUT1', 'FTIMEOUTOUT1', 'FGARBAGEOUT1', 'F500OUT1']
    for (const trackingNumber of numbers)
      await t.services.subscriptions.subscribe(userId, { carrierCode: 'FEDEX', trackingNumber, callbackUrl: 'https://a.example/' })
    const snapshot = () =>
      t.db.query(
        `SELECT tracking_number, standard_status, carrier_status, estimated_delivery_at, (SELECT count(*)::int FROM tracking_events e WHERE e.task_id = t.id) AS events FROM tracking_tasks t WHERE tracking_number = ANY($1) ORDER BY 1`,
        [numbers],
      )
    const before = await snapshot()
    const due = () =>
      t.db.query(
        `UPDATE task_schedule s SET next_refresh_at = now() FROM tracking_tasks t WHERE t.id = s.task_id AND t.tracking_number = ANY($1) AND s.next_refresh_at IS NOT NULL`,
        [numbers],
      )

    // Down: connection refused.
    expect(await service.runRound()).toMatchObject({ claimed: 4, failed: 4, applied: 0 })
    expect(await snapshot()).toEqual(before)

    // Up, but slow and answering garbage for these numbers' first requests (each alone).
    await sim.start()
    for (const number of numbers.slice(1)) {
      await t.db.query(
        `UPDATE task_schedule s SET next_refresh_at = CASE WHEN t.tracking_number = $1 THEN now() END FROM tracking_tasks t WHERE t.id = s.task_id AND t.tracking_number = ANY($2)`,
        [number, numbers],
      )
      expect(await service.runRound()).toMatchObject({ claimed: 1, failed: 1 })
      expect(await snapshot()).toEqual(before)
    }
    await t.db.query(`UPDATE task_schedule s SET next_refresh_at = now() FROM tracking_tasks t WHERE t.id = s.task_id AND t.tracking_number = ANY($1)`, [
      numbers,
    ])

    // Back to normal: every task refreshes.
    for (let i = 0; i < 3; i++) {
      await due()
      await service.runRound()
    }
    const after = await snapshot()
    expect(after.map((r) => r.standard_status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered'])
    await fedex.close()
    await sim.stop()
  })
})

describe('receiver outage', () => {
  it('a receiver down for the whole schedule: failed, with every attempt recorded', async () => {
    const port = await freePort()
    const { taskId } = await t.services.subscriptions.subscribe(userId, {
      carrierCode: 'FEDEX',
      trackingNumber: 'DLRECV1',
      callbackUrl: `http://127.0.0.1:${port}/hook`,
    })
    await t.db.query(
      `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, next_attempt_at) VALUES ($1, (SELECT user_id FROM tracking_tasks WHERE id = $1), 'msg_d0d0d0d0d0d0d0d0', '{}', now())`,
      [taskId],
    )
    const http = new WebhookHttp({ timeoutMs: 500, allowPrivateTargets: true })
    const service = createWebhookDelivery(
      t.db,
      new OutboxRepository(t.db),
      http,
      { scheduleMs: [20, 20, 20, 20, 20, 20, 20], leaseMs: 5000, concurrency: 4, hostConcurrency: 4 },
      metrics,
      { warn: () => {} },
    )
    await waitFor(
      async () => {
        await service.runRound()
        await service.drain()
        return (await t.db.query<{ status: string }>(`SELECT status FROM deliveries WHERE webhook_id = 'msg_d0d0d0d0d0d0d0d0'`))[0]!.status === 'failed'
      },
      { intervalMs: 30, what: 'the delivery to fail after its whole schedule' },
    )
    await http.close()
    const [delivery] = await t.db.query(
      `SELECT status, attempt_count, next_attempt_at IS NULL AS no_retry FROM deliveries WHERE webhook_id = 'msg_d0d0d0d0d0d0d0d0'`,
    )
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 8 })
    const attempts = await t.db.query<{ attempt_number: number; response_status_code: number; error_message: string }>(
      `SELECT a.attempt_number, a.response_status_code, a.error_message FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = 'msg_d0d0d0d0d0d0d0d0' ORDER BY 1`,
    )
    expect(attempts.map((a) => a.attempt_number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    expect(attempts.every((a) => a.response_status_code === 0 && a.error_message === 'connection failed: ECONNREFUSED')).toBe(true)
    const latest = parseDocument(await t.services.subscriptions.find(userId, { taskId: String(taskId) })).latestWebhook
    expect(latest).toMatchObject({
      status: 'failed',
      attemptCount: 8,
      nextRetryAt: null,
      responseStatusCode: 0,
      errorMessage: 'connection failed: ECONNREFUSED',
    })
  })
})
