import { Registry } from 'prom-client'
import { createWebhookDelivery } from '../../../test/support/worker-services'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OutboxRepository } from '../../db/outbox.repository'
import { ServiceMetrics } from '../../observability/metrics'
import { WebhookHttp } from '../../webhooks/webhook-http'
import { createTestApp, type TestApp } from '../../../test/support/test-app'
import { WebhookReceiver } from '../../../test/support/webhook-receiver'

let t: TestApp
let receiver: WebhookReceiver
let owner: { userId: number; token: string }
let stranger: { userId: number; token: string }
let taskId: number
const webhookId = 'msg_0123456789abcdef'

beforeAll(async () => {
  t = await createTestApp()
  receiver = new WebhookReceiver()
  await receiver.start()
  owner = await t.createUser('owner')
  stranger = await t.createUser('stranger')
  const callbackUrl = receiver.on('/hook', () => ({ status: 200, body: 'thanks' }))
  taskId = (await t.services.subscriptions.subscribe(owner.userId, { carrierCode: 'FEDEX', trackingNumber: 'HIST1', callbackUrl })).taskId
  // A delivery that failed after two attempts.
  const [delivery] = await t.db.query<{ id: number }>(
    `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, status, attempt_count, last_attempt_at, response_status_code, error_message, created_at)
     VALUES ($1, (SELECT user_id FROM tracking_tasks WHERE id = $1), $2, '{"type": "tracking.status_changed"}', 'failed', 2, '2026-11-20T10:00:05Z', 500, 'HTTP 500', '2026-11-20T10:00:00Z') RETURNING id`,
    [taskId, webhookId],
  )
  await t.db.query(
    `INSERT INTO delivery_attempts (delivery_id, attempt_number, started_at, duration_ms, response_status_code, error_message, response_body_excerpt)
     VALUES ($1, 1, '2026-11-20T10:00:00Z', 12, 0, 'connection failed: ECONNREFUSED', ''), ($1, 2, '2026-11-20T10:00:05Z', 40, 500, 'HTTP 500', 'oops')`,
    [delivery!.id],
  )
})
afterAll(async () => {
  await receiver.stop()
  await t.close()
})

const history = (id: number | string, as = owner.token) => t.as(as, { method: 'GET', url: `/openapi/tracking-subscriptions/${id}/webhooks` })
const redeliver = (id: number | string, msg: string, as = owner.token) =>
  t.as(as, { method: 'POST', url: `/openapi/tracking-subscriptions/${id}/webhooks/${msg}/redeliver` })

describe('GET /openapi/tracking-subscriptions/{taskId}/webhooks', () => {
  it("lists the task's deliveries with every attempt", async () => {
    const res = await history(taskId)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      code: 200,
      msg: 'success',
      data: {
        deliveries: [
          {
            webhookId,
            type: 'tracking.status_changed',
            status: 'failed',
            attemptCount: 2,
            nextRetryAt: null,
            lastAttemptAt: '2026-11-20T10:00:05.000Z',
            responseStatusCode: 500,
            errorMessage: 'HTTP 500',
            createdAt: '2026-11-20T10:00:00.000Z',
            attempts: [
              {
                attemptNumber: 1,
                startedAt: '2026-11-20T10:00:00.000Z',
                durationMs: 12,
                responseStatusCode: 0,
                errorMessage: 'connection failed: ECONNREFUSED',
                responseBody: '',
              },
              {
                attemptNumber: 2,
                startedAt: '2026-11-20T10:00:05.000Z',
                durationMs: 40,
                responseStatusCode: 500,
                errorMessage: 'HTTP 500',
                responseBody: 'oops',
              },
            ],
          },
        ],
      },
    })
  })

  it('is empty for a task without notifications', async () => {
    const other = (
      await t.services.subscriptions.subscribe(owner.userId, { carrierCode: 'UPARCEL', trackingNumber: 'HIST2', callbackUrl: 'https://a.example/' })
    ).taskId
    expect((await history(other)).json().data).toEqual({ deliveries: [] })
  })

  it("answers 404 for another user's task and for a missing one, 400 for a malformed id", async () => {
    for (const res of [await history(taskId, stranger.token), await history(999999)]) {
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ code: 404, data: { error: 'not_found' }, msg: 'subscription not found' })
    }
    expect((await history('1.5')).statusCode).toBe(400)
    expect((await t.app.inject({ method: 'GET', url: `/openapi/tracking-subscriptions/${taskId}/webhooks` })).statusCode).toBe(401)
  })
})

describe('POST /openapi/tracking-subscriptions/{taskId}/webhooks/{webhookId}/redeliver', () => {
  it('answers 404 to another user, for an unknown or malformed webhook id', async () => {
    for (const res of [await redeliver(taskId, webhookId, stranger.token), await redeliver(taskId, 'msg_ffffffffffffffff'), await redeliver(taskId, 'nope')]) {
      expect(res.statusCode).toBe(404)
      expect(res.json().data.error).toBe('not_found')
    }
    expect((await history(taskId)).json().data.deliveries[0].status).toBe('failed')
  })

  it('sends a failed delivery again, same webhook-id, on a fresh cycle of the schedule', async () => {
    const wakeUps = t.wakeups.deliveries
    const res = await redeliver(taskId, webhookId)
    expect(res.json()).toEqual({ code: 200, msg: 'success', data: { webhookId, status: 'pending' } })
    // The webhook workers are woken (here, and elsewhere by a NOTIFY) rather than left to poll.
    expect(t.wakeups.deliveries).toBe(wakeUps + 1)
    // Asking again while it is on its way changes nothing.
    expect((await redeliver(taskId, webhookId)).json().data).toEqual({ webhookId, status: 'pending' })
    const query = await t.as(owner.token, { method: 'GET', url: `/openapi/tracking-subscriptions?taskId=${taskId}` })
    expect(query.json().data.latestWebhook).toMatchObject({ status: 'pending', attemptCount: 2, nextRetryAt: null })

    const repository = new OutboxRepository(t.db)
    const http = new WebhookHttp({ timeoutMs: 1000, allowPrivateTargets: true })
    const service = createWebhookDelivery(
      t.db,
      repository,
      http,
      { scheduleMs: [1000], leaseMs: 10_000, concurrency: 4, hostConcurrency: 4 },
      new ServiceMetrics(new Registry()),
      { warn: () => {} },
    )
    await service.runRound()
    await service.drain()
    await http.close()
    expect(receiver.requests('/hook').map((r) => r.headers['webhook-id'])).toEqual([webhookId])
    const [delivery] = (await history(taskId)).json().data.deliveries
    expect(delivery).toMatchObject({ status: 'success', attemptCount: 3, responseStatusCode: 200 })
    expect(delivery.attempts.map((a: { attemptNumber: number; responseBody: string }) => [a.attemptNumber, a.responseBody])).toEqual([
      [1, ''],
      [2, 'oops'],
      [3, 'thanks'],
    ])
  })

  it('is in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    expect(doc.paths['/openapi/tracking-subscriptions/{taskId}/webhooks'].get).toBeDefined()
    expect(doc.paths['/openapi/tracking-subscriptions/{taskId}/webhooks/{webhookId}/redeliver'].post).toBeDefined()
  })
})
