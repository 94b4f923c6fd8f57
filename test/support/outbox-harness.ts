import { randomBytes } from 'node:crypto'
import { Registry } from 'prom-client'
import { afterAll, beforeAll } from 'vitest'
import { OutboxRepository } from '../../src/db/outbox.repository'
import { parseDocument } from '../../src/domain/task-document'
import { statusChangedBody } from '../../src/domain/webhook-payload'
import { ServiceMetrics } from '../../src/observability/metrics'
import type { DeliveryHooks, DeliveryOptions, OutboxService } from '../../src/services/outbox.service'
import { WebhookHttp } from '../../src/webhooks/webhook-http'
import { createTestApp, type TestApp } from './test-app'
import { waitFor } from './wait-for'
import { WebhookReceiver } from './webhook-receiver'
import { createWebhookDelivery } from './worker-services'

/**
 * The webhook channel of the outbox over real HTTP to a receiver on loopback, on the real
 * database, with short schedules so that retries fit a test: a test file calls `outboxHarness()`
 * at its top, reads the app, receiver and user from it once its beforeAll has run, and makes its
 * services and deliveries with its helpers.
 */
export const SCHEDULE = [50, 50, 50]

export function outboxHarness() {
  const h = {
    t: undefined as unknown as TestApp,
    receiver: undefined as unknown as WebhookReceiver,
    repository: undefined as unknown as OutboxRepository,
    registry: undefined as unknown as Registry,
    metrics: undefined as unknown as ServiceMetrics,
    user: undefined as unknown as { userId: number; token: string; webhookSecret: string },
    makeService,
    notification,
    settle,
    countCalls,
    latestWebhook,
    attempts,
  }
  const services: { service: OutboxService; http: WebhookHttp }[] = []
  let seq = 0

  beforeAll(async () => {
    h.t = await createTestApp()
    h.receiver = new WebhookReceiver()
    await h.receiver.start()
    h.repository = new OutboxRepository(h.t.db)
    h.registry = new Registry()
    h.metrics = new ServiceMetrics(h.registry, { webhookQueueDepth: () => h.repository.queueDepth('webhook') })
    h.user = await h.t.createUser('hooked')
  })
  afterAll(async () => {
    for (const { service, http } of services) {
      await service.drain()
      await http.close()
    }
    await h.receiver.stop()
    await h.t.close()
  })

  function makeService(
    options: Partial<DeliveryOptions> = {},
    http = new WebhookHttp({ timeoutMs: 500, allowPrivateTargets: true }),
    hooks: DeliveryHooks = {},
  ) {
    const service = createWebhookDelivery(
      h.t.db,
      h.repository,
      http,
      { scheduleMs: SCHEDULE, leaseMs: 10_000, concurrency: 16, hostConcurrency: 8, ...options },
      h.metrics,
      { warn: () => {} },
      hooks,
    )
    services.push({ service, http })
    return service
  }

  /** A task with this callback URL and one pending notification for it. */
  async function notification(callbackUrl: string, owner = h.user): Promise<{ taskId: number; webhookId: string }> {
    const trackingNumber = `WH${Date.now()}${++seq}`
    const { taskId } = await h.t.services.subscriptions.subscribe(owner.userId, { carrierCode: 'FEDEX', trackingNumber, callbackUrl })
    const { latestWebhook: _none, ...task } = parseDocument(await h.t.services.subscriptions.find(owner.userId, { taskId: String(taskId) }))
    const webhookId = `msg_${randomBytes(8).toString('hex')}`
    const payload = statusChangedBody(
      JSON.stringify({ ...task, standardStatus: 'in_transit', carrierStatus: 'Picked up' }),
      { standardStatus: 'pending', carrierStatus: '' },
      new Date(),
    )
    await h.t.db.query(
      `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, next_attempt_at) VALUES ($1, (SELECT user_id FROM tracking_tasks WHERE id = $1), $2, $3, now())`,
      [taskId, webhookId, payload.text],
    )
    return { taskId, webhookId }
  }

  /** Runs rounds until the delivery is settled (success or failed) or `rounds` run out. */
  async function settle(service: OutboxService, webhookId: string, rounds = 20): Promise<string> {
    let status = ''
    let round = 0
    await waitFor(
      async () => {
        await service.runRound()
        await service.drain()
        ;[{ status } = { status: '' }] = await h.t.db.query<{ status: string }>('SELECT status FROM deliveries WHERE webhook_id = $1', [webhookId])
        return status === 'success' || status === 'failed' || ++round >= rounds
      },
      { timeoutMs: 30_000, intervalMs: 60 },
    )
    return status
  }

  /**
   * Counts, until `restore`, the claims (the repository's) or the reaps (the only transactions a
   * round opens: the service's own unit of work).
   */
  function countCalls(what: 'claim' | 'reap'): { calls: () => number; restore: () => void } {
    const [owner, method] = what === 'claim' ? [h.repository, 'claim'] : [h.t.db, 'transaction']
    const target = owner as unknown as Record<string, (...args: unknown[]) => unknown>
    const original = target[method]!
    let calls = 0
    target[method] = (...args) => {
      calls++
      return original.apply(owner, args)
    }
    return { calls: () => calls, restore: () => (target[method] = original) }
  }

  async function latestWebhook(taskId: number) {
    return parseDocument(await h.t.services.subscriptions.find(h.user.userId, { taskId: String(taskId) })).latestWebhook
  }

  async function attempts(webhookId: string) {
    return h.t.db.query<{ attempt_number: number; response_status_code: number; error_message: string; response_body_excerpt: string; duration_ms: number }>(
      `SELECT a.attempt_number, a.response_status_code, a.error_message, a.response_body_excerpt, a.duration_ms
         FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
        WHERE d.webhook_id = $1 ORDER BY a.attempt_number`,
      [webhookId],
    )
  }

  return h
}
