import { Registry } from 'prom-client'
import { Webhook } from 'standardwebhooks'
import { beforeAll, describe, expect, it } from 'vitest'
import type { OutboxRepository } from '../db/outbox.repository'
import { WebhookHttp } from '../webhooks/webhook-http'
import { outboxHarness, SCHEDULE } from '../../test/support/outbox-harness'
import type { TestApp } from '../../test/support/test-app'
import type { WebhookReceiver } from '../../test/support/webhook-receiver'
import { waitFor } from '../../test/support/wait-for'

// The webhook channel of the outbox: what each answer of a receiver leads to, leases, reaping,
// SSRF and the metrics (the per-host gate: outbox-gates.test.ts).
const h = outboxHarness()
let t: TestApp
let receiver: WebhookReceiver
let repository: OutboxRepository
let registry: Registry
let user: { userId: number; token: string; webhookSecret: string }
beforeAll(() => ({ t, receiver, repository, registry, user } = h))
const { makeService, notification, settle, countCalls, latestWebhook, attempts } = h

describe('receiver scenarios', () => {
  it('2xx the first time: success after one signed attempt the standardwebhooks package verifies', async () => {
    const url = receiver.on('/ok', () => ({ status: 204 }))
    const { taskId, webhookId } = await notification(url)
    expect(await latestWebhook(taskId)).toEqual({
      status: 'pending',
      attemptCount: 0,
      nextRetryAt: null,
      lastAttemptAt: null,
      responseStatusCode: 0,
      errorMessage: '',
    })
    expect(await settle(makeService(), webhookId)).toBe('success')
    const [request] = receiver.requests('/ok')
    expect(request!.headers['content-type']).toBe('application/json')
    expect(request!.headers['webhook-id']).toBe(webhookId)
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5)
    const verified = new Webhook(user.webhookSecret).verify(request!.body, request!.headers as Record<string, string>) as Record<string, unknown>
    expect(verified).toMatchObject({
      type: 'tracking.status_changed',
      data: { taskId, standardStatus: 'in_transit', previousStandardStatus: 'pending', previousCarrierStatus: '' },
    })
    expect(verified.data).not.toHaveProperty('latestWebhook')
    const latest = await latestWebhook(taskId)
    expect(latest).toMatchObject({ status: 'success', attemptCount: 1, nextRetryAt: null, responseStatusCode: 204, errorMessage: '' })
    expect(latest!.lastAttemptAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/)
  })

  it('500 twice, then 2xx: one webhook-id throughout, every attempt stored', async () => {
    const url = receiver.on('/flaky', (n) => (n <= 2 ? { status: 500, body: `boom ${n}` } : { status: 200, body: 'fine' }))
    const { taskId, webhookId } = await notification(url)
    const service = makeService()
    await service.runRound()
    await service.drain()
    const waiting = await latestWebhook(taskId)
    expect(waiting).toMatchObject({ status: 'retry_wait', attemptCount: 1, responseStatusCode: 500, errorMessage: 'HTTP 500' })
    expect(waiting!.nextRetryAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/)
    expect(await settle(service, webhookId)).toBe('success')
    expect(new Set(receiver.requests('/flaky').map((r) => r.headers['webhook-id']))).toEqual(new Set([webhookId]))
    expect((await attempts(webhookId)).map((a) => [a.attempt_number, a.response_status_code, a.response_body_excerpt])).toEqual([
      [1, 500, 'boom 1'],
      [2, 500, 'boom 2'],
      [3, 200, 'fine'],
    ])
    expect(await latestWebhook(taskId)).toMatchObject({ status: 'success', attemptCount: 3, responseStatusCode: 200, errorMessage: '', nextRetryAt: null })
  })

  it('always 500: failed after 1 + schedule-length attempts', async () => {
    const url = receiver.on('/down', () => ({ status: 500 }))
    const { taskId, webhookId } = await notification(url)
    expect(await settle(makeService(), webhookId)).toBe('failed')
    expect(receiver.requests('/down')).toHaveLength(1 + SCHEDULE.length)
    expect(await latestWebhook(taskId)).toMatchObject({ status: 'failed', attemptCount: 4, nextRetryAt: null, responseStatusCode: 500 })
  })

  it('410 Gone: failed at once', async () => {
    const url = receiver.on('/gone', () => ({ status: 410 }))
    const { taskId, webhookId } = await notification(url)
    expect(await settle(makeService(), webhookId)).toBe('failed')
    expect(receiver.requests('/gone')).toHaveLength(1)
    expect(await latestWebhook(taskId)).toMatchObject({ status: 'failed', attemptCount: 1, responseStatusCode: 410 })
  })

  it('302: a failed attempt, and the redirect is never followed', async () => {
    receiver.on('/moved-to', () => ({ status: 200 }))
    const url = receiver.on('/redirect', () => ({ status: 302, headers: { location: `${receiver.url}/moved-to` } }))
    const { taskId, webhookId } = await notification(url)
    const service = makeService()
    await service.runRound()
    await service.drain()
    expect(await latestWebhook(taskId)).toMatchObject({ status: 'retry_wait', responseStatusCode: 302, errorMessage: 'HTTP 302 (redirects are not followed)' })
    expect(await settle(service, webhookId)).toBe('failed')
    expect(receiver.requests('/moved-to')).toHaveLength(0)
  })

  it('slower than the timeout: a failed attempt with no status code', async () => {
    const url = receiver.on('/slow', () => ({ status: 200, delayMs: 1500 }))
    const { taskId } = await notification(url)
    const service = makeService()
    await service.runRound()
    await service.drain()
    const latest = await latestWebhook(taskId)
    expect(latest).toMatchObject({ status: 'retry_wait', attemptCount: 1, responseStatusCode: 0, errorMessage: 'timeout: no answer within 500 ms' })
  })

  it('connection refused: a failed attempt with no status code', async () => {
    const { taskId } = await notification('http://127.0.0.1:1/hook')
    const service = makeService()
    await service.runRound()
    await service.drain()
    expect(await latestWebhook(taskId)).toMatchObject({ status: 'retry_wait', responseStatusCode: 0, errorMessage: 'connection failed: ECONNREFUSED' })
  })

  it('honours Retry-After within bounds', async () => {
    const url = receiver.on('/busy', () => ({ status: 429, headers: { 'retry-after': '30' } }))
    const { taskId } = await notification(url)
    const service = makeService({ scheduleMs: [50, 60_000] })
    await service.runRound()
    await service.drain()
    const latest = await latestWebhook(taskId)
    const waitMs = Date.parse(latest!.nextRetryAt!) - Date.now()
    expect(waitMs).toBeGreaterThan(25_000)
    expect(waitMs).toBeLessThanOrEqual(30_000)
  })

  it('stores only the first 2 kB of an answer', async () => {
    const url = receiver.on('/chatty', () => ({ status: 200, body: 'é'.repeat(5000) }))
    const { webhookId } = await notification(url)
    await settle(makeService(), webhookId)
    const [attempt] = await attempts(webhookId)
    expect(Buffer.byteLength(attempt!.response_body_excerpt)).toBeLessThanOrEqual(2048)
    expect(attempt!.response_body_excerpt.length).toBe(1024)
  })

  it('signs with both secrets during a rotation', async () => {
    const rotating = await t.createUser('rotating')
    const { webhookSecret: newSecret } = await t.services.users.rotateWebhookSecret(rotating.userId)
    const url = receiver.on('/rotating', () => ({ status: 200 }))
    const { webhookId } = await notification(url, rotating)
    await settle(makeService(), webhookId)
    const [request] = receiver.requests('/rotating')
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2)
    for (const secret of [rotating.webhookSecret, newSecret]) {
      expect(() => new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).not.toThrow()
    }
  })
})

describe('leases', () => {
  it('a delivery whose worker died mid-attempt is attempted again; nothing stays sending', async () => {
    const url = receiver.on('/after-crash', () => ({ status: 200 }))
    const { taskId, webhookId } = await notification(url)
    // Earlier tests' retries are parked, so that this delivery is the one claimed.
    await t.db.query(`UPDATE deliveries SET next_attempt_at = now() + interval '1 day' WHERE webhook_id <> $1 AND status IN ('pending', 'retry_wait')`, [
      webhookId,
    ])
    // A worker claims it and dies: the claim is never completed.
    const [claimed] = await repository.claim('webhook', 1, 100, 8)
    expect(claimed!.webhookId).toBe(webhookId)
    expect((await latestWebhook(taskId))!.status).toBe('sending')
    await waitFor(
      async () =>
        (await t.db.query<{ expired: boolean }>('SELECT lease_until < now() AS expired FROM deliveries WHERE webhook_id = $1', [webhookId]))[0]!.expired,
      { what: 'the lease to run out' },
    )
    expect(await settle(makeService(), webhookId)).toBe('success')
    expect((await attempts(webhookId)).map((a) => [a.attempt_number, a.error_message])).toEqual([
      [1, 'attempt interrupted: the worker lost its lease'],
      [2, ''],
    ])
    expect(await latestWebhook(taskId)).toMatchObject({ status: 'success', attemptCount: 2 })
    // The dead worker's late answer changes nothing.
    expect(
      await repository.complete(claimed!, {
        status: 'failed',
        startedAt: new Date(),
        nextAttemptAt: null,
        statusCode: 500,
        error: 'late',
        durationMs: 1,
        responseExcerpt: '',
        providerId: null,
      }),
    ).toBe(false)
  })
})

describe('claiming in batches', () => {
  it('with claimAtLeast, claims again only once that many slots are free', async () => {
    // Two slow answers hold two of four slots; two more deliveries wait.
    const url = receiver.on('/batched', () => ({ status: 200, delayMs: 400 }))
    await t.db.query(`UPDATE deliveries SET next_attempt_at = now() + interval '1 day' WHERE status IN ('pending', 'retry_wait')`)
    const first = [await notification(url), await notification(url)]
    const service = makeService({ concurrency: 4, hostConcurrency: 4, claimAtLeast: 3 })
    expect(await service.runRound()).toBe(false)
    const waiting = [await notification(url), await notification(url)]
    const claims = countCalls('claim')
    try {
      // Two slots free, three wanted: no claim while the first two are in flight.
      expect(await service.runRound()).toBe(false)
      expect(claims.calls()).toBe(0)
      await service.drain()
      // All four free: the claim takes both waiting deliveries at once.
      await service.runRound()
      expect(claims.calls()).toBe(1)
      await service.drain()
    } finally {
      claims.restore()
    }
    for (const { webhookId } of [...first, ...waiting]) expect(await settle(service, webhookId)).toBe('success')
  })
})

describe('reaping', () => {
  it('looks for expired leases on the first round, then at most once a second', async () => {
    const reaps = countCalls('reap')
    try {
      let clock = Date.now()
      const service = makeService({}, undefined, { now: () => new Date(clock) })
      for (let i = 0; i < 5; i++) await service.runRound()
      expect(reaps.calls()).toBe(1)
      clock += 999
      await service.runRound()
      expect(reaps.calls()).toBe(1)
      clock += 2
      await service.runRound()
      expect(reaps.calls()).toBe(2)
    } finally {
      reaps.restore()
    }
  })
})

describe('SSRF', () => {
  const corpus = [
    'http://127.0.0.1:9/hook',
    'http://localhost:9/hook',
    'http://[::1]:9/hook',
    'http://10.0.0.1/hook',
    'http://172.16.5.4/hook',
    'http://192.168.0.10/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://2130706433/hook',
    'http://0177.0.0.1/hook',
    'http://0x7f.0.0.1/hook',
    'http://127.1/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:a9fe:a9fe]/hook',
    'http://[64:ff9b::a00:1]/hook',
    'http://[fe80::1]/hook',
    'http://[fd00::1]/hook',
    'http://internal.corp.example/hook',
    'http://rebind.example/hook',
  ]
  // A stand-in DNS: names that resolve to private addresses (one of them among public ones).
  const resolver = async (host: string) =>
    ({ 'internal.corp.example': ['10.1.2.3'], 'rebind.example': ['93.184.216.34', '127.0.0.1'], localhost: ['127.0.0.1', '::1'] })[host] ?? ['203.0.113.7']

  it.each(corpus)('refuses %s without connecting', async (target) => {
    const http = new WebhookHttp({ timeoutMs: 500, allowPrivateTargets: false, resolver })
    try {
      const result = await http.post(target, { 'content-type': 'application/json' }, '{}')
      expect(result.statusCode).toBe(0)
      expect(result.error).toMatch(/^refused: .* resolves to the non-public address /)
    } finally {
      await http.close()
    }
  })

  it('records a refused target as a failed attempt', async () => {
    const { taskId } = await notification('http://169.254.169.254/latest/meta-data/')
    const service = makeService({}, new WebhookHttp({ timeoutMs: 500, allowPrivateTargets: false }))
    await service.runRound()
    await service.drain()
    expect(await latestWebhook(taskId)).toMatchObject({
      status: 'retry_wait',
      responseStatusCode: 0,
      errorMessage: 'refused: 169.254.169.254 resolves to the non-public address 169.254.169.254',
    })
  })
})

describe('metrics', () => {
  it('count attempts by outcome and show the queue depth', async () => {
    // Its own attempts, whatever the tests before it did: one delivered, one retried then
    // failed for good, and one left waiting for its retry.
    const counted = async (outcome: string) =>
      Number(new RegExp(`webhook_attempts_total\\{outcome="${outcome}"\\} (\\d+)`).exec(await registry.metrics())?.[1] ?? 0)
    await t.db.query(`UPDATE deliveries SET next_attempt_at = now() + interval '1 day' WHERE status IN ('pending', 'retry_wait')`)
    const before = { success: await counted('success'), retry: await counted('retry'), failed: await counted('failed') }
    const service = makeService({ scheduleMs: [50] })
    expect(await settle(service, (await notification(receiver.on('/metrics-ok', () => ({ status: 200 })))).webhookId)).toBe('success')
    expect(await settle(service, (await notification(receiver.on('/metrics-gone', () => ({ status: 500 })))).webhookId)).toBe('failed')
    expect({ success: await counted('success'), retry: await counted('retry'), failed: await counted('failed') }).toEqual({
      success: before.success + 1,
      retry: before.retry + 1,
      failed: before.failed + 1,
    })
    const { webhookId } = await notification(receiver.on('/metrics-later', () => ({ status: 503 })))
    await makeService({ scheduleMs: [3_600_000] }).runRound()
    await waitFor(async () => (await t.db.query(`SELECT 1 FROM deliveries WHERE webhook_id = $1 AND status = 'retry_wait'`, [webhookId])).length === 1)
    const waiting = Number(/webhook_queue_depth\{status="retry_wait"\} (\d+)/.exec(await registry.metrics())?.[1] ?? 0)
    expect(waiting).toBeGreaterThanOrEqual(1)
  })
})
