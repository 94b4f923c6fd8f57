import { randomBytes } from 'node:crypto'
import { createWebhookDelivery } from '../../test/support/worker-services'
import { Registry } from 'prom-client'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OutboxRepository } from '../db/outbox.repository'
import { parseDocument } from '../domain/task-document'
import { statusChangedBody } from '../domain/webhook-payload'
import { ServiceMetrics } from '../observability/metrics'
import { WebhookHttp } from '../webhooks/webhook-http'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { WebhookReceiver } from '../../test/support/webhook-receiver'
import { type OutboxService, type DeliveryHooks, type DeliveryOptions } from './outbox.service'
import { waitFor } from '../../test/support/wait-for'

// Real HTTP to a receiver on loopback, the real database; short schedules so retries fit a test.
const SCHEDULE = [50, 50, 50]
let t: TestApp
let receiver: WebhookReceiver
let repository: OutboxRepository
let registry: Registry
let metrics: ServiceMetrics
let user: { userId: number; token: string; webhookSecret: string }
const services: { service: OutboxService; http: WebhookHttp }[] = []

beforeAll(async () => {
  t = await createTestApp()
  receiver = new WebhookReceiver()
  await receiver.start()
  repository = new OutboxRepository(t.db)
  registry = new Registry()
  metrics = new ServiceMetrics(registry, { webhookQueueDepth: () => repository.queueDepth('webhook') })
  user = await t.createUser('hooked')
})
afterAll(async () => {
  for (const { service, http } of services) {
    await service.drain()
    await http.close()
  }
  await receiver.stop()
  await t.close()
})

const silent = { warn: () => {} }

function makeService(options: Partial<DeliveryOptions> = {}, http = new WebhookHttp({ timeoutMs: 500, allowPrivateTargets: true }), hooks: DeliveryHooks = {}) {
  const service = createWebhookDelivery(
    t.db,
    repository,
    http,
    { scheduleMs: SCHEDULE, leaseMs: 10_000, concurrency: 16, hostConcurrency: 8, ...options },
    metrics,
    silent,
    hooks,
  )
  services.push({ service, http })
  return service
}

let seq = 0
/** A task with this callback URL and one pending notification for it. */
async function notification(callbackUrl: string, owner = user): Promise<{ taskId: number; webhookId: string }> {
  const trackingNumber = `WH${Date.now()}${++seq}`
  const { taskId } = await t.services.subscriptions.subscribe(owner.userId, { carrierCode: 'FEDEX', trackingNumber, callbackUrl })
  const { latestWebhook: _none, ...task } = parseDocument(await t.services.subscriptions.find(owner.userId, { taskId: String(taskId) }))
  const webhookId = `msg_${randomBytes(8).toString('hex')}`
  const payload = statusChangedBody(
    JSON.stringify({ ...task, standardStatus: 'in_transit', carrierStatus: 'Picked up' }),
    { standardStatus: 'pending', carrierStatus: '' },
    new Date(),
  )
  await t.db.query(
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
      ;[{ status } = { status: '' }] = await t.db.query<{ status: string }>('SELECT status FROM deliveries WHERE webhook_id = $1', [webhookId])
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
  const [owner, method] = what === 'claim' ? [repository, 'claim'] : [t.db, 'transaction']
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
  return parseDocument(await t.services.subscriptions.find(user.userId, { taskId: String(taskId) })).latestWebhook
}

async function attempts(webhookId: string) {
  return t.db.query<{ attempt_number: number; response_status_code: number; error_message: string; response_body_excerpt: string; duration_ms: number }>(
    `SELECT a.attempt_number, a.response_status_code, a.error_message, a.response_body_excerpt, a.duration_ms
       FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE d.webhook_id = $1 ORDER BY a.attempt_number`,
    [webhookId],
  )
}

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

describe('concurrency', () => {
  it('a slow receiver holds at most its host limit: other hosts are served meanwhile', async () => {
    const slow = receiver.on('/tarpit', () => ({ status: 200, delayMs: 1500 }))
    const fastUrl = (path: string) => receiver.on(path, () => ({ status: 200 })).replace('127.0.0.1', 'localhost')
    const slowOnes = await Promise.all(Array.from({ length: 6 }, () => notification(slow)))
    const fastOnes = [await notification(fastUrl('/quick1')), await notification(fastUrl('/quick2'))]
    const service = makeService({ concurrency: 4, hostConcurrency: 2 })
    const started = Date.now()
    await service.runRound()
    await service.runRound()
    // The slow host answers after 1.5 s: the fast ones must be done well before.
    await waitFor(
      async () => {
        await service.runRound()
        return receiver.requests('/quick1').length + receiver.requests('/quick2').length >= 2
      },
      { timeoutMs: 1400, intervalMs: 20, what: 'the fast hosts, while the slow one holds its slots' },
    )
    expect(Date.now() - started).toBeLessThan(1400)
    expect(receiver.requests('/tarpit').length).toBeLessThanOrEqual(2)
    await service.drain()
    for (const { webhookId } of [...slowOnes, ...fastOnes]) await settle(service, webhookId, 40)
  })
})

describe('adaptive per-host concurrency', () => {
  /** The most requests a path had open at once, from their arrivals and the time the nth (1-based) was kept. */
  const mostAtOnce = (path: string, keptMs: (nth: number) => number) => {
    const spans = receiver.requests(path).map((r, i) => [r.at, r.at + keptMs(i + 1)] as const)
    return Math.max(0, ...spans.map(([start]) => spans.filter(([from, to]) => from <= start && to > start).length))
  }
  const sendAll = async (service: OutboxService, webhookIds: string[], timeoutMs = 20_000) =>
    waitFor(
      async () => {
        await service.runRound()
        const [row] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE webhook_id = ANY($1) AND status <> 'success'`, [
          webhookIds,
        ])
        return row!.n === 0
      },
      { timeoutMs, intervalMs: 10, what: 'every delivery to succeed' },
    )
  const only = async (ids: string[]) =>
    t.db.query(`UPDATE deliveries SET next_attempt_at = now() + interval '1 day' WHERE NOT (webhook_id = ANY($1)) AND status IN ('pending', 'retry_wait')`, [
      ids,
    ])

  it('grows a quick host past where it starts, never above its cap, and shows the limit in metrics', async () => {
    const url = receiver.on('/quick-many', () => ({ status: 200, delayMs: 20 }))
    const ids = (await Promise.all(Array.from({ length: 150 }, () => notification(url)))).map((n) => n.webhookId)
    await only(ids)
    const service = makeService(
      { concurrency: 64, hostConcurrency: 4, hostConcurrencyMax: 12 },
      new WebhookHttp({ timeoutMs: 2000, allowPrivateTargets: true, connectionsPerHost: 12 }),
    )
    await sendAll(service, ids)
    const most = mostAtOnce('/quick-many', () => 20)
    expect(most).toBeGreaterThan(4)
    expect(most).toBeLessThanOrEqual(12)
    expect(await registry.metrics()).toMatch(/webhook_host_concurrency_limit\{host="127\.0\.0\.1"\} 12/)
  })

  it('while every host it knows is full, looks for other hosts at most every 250 ms', async () => {
    const url = receiver.on('/full-host', () => ({ status: 200, delayMs: 300 }))
    const ids = (await Promise.all(Array.from({ length: 4 }, () => notification(url)))).map((n) => n.webhookId)
    await only(ids)
    const claims = countCalls('claim')
    try {
      let clock: number | undefined = Date.now()
      const service = makeService({ concurrency: 8, hostConcurrency: 2, hostConcurrencyMax: 2 }, undefined, { now: () => new Date(clock ?? Date.now()) })
      // The first round takes the host's two; the host is then full.
      await service.runRound()
      for (let i = 0; i < 5; i++) await service.runRound()
      expect(claims.calls()).toBe(2)
      clock += 249
      await service.runRound()
      expect(claims.calls()).toBe(2)
      clock += 2
      await service.runRound()
      expect(claims.calls()).toBe(3)
      clock = undefined
      await sendAll(service, ids)
    } finally {
      claims.restore()
    }
  })

  it('gives a receiver slowing to 200 ms no more than its cap at once, and no storm of failures', async () => {
    const url = receiver.on('/slowing', (n) => ({ status: 200, delayMs: n <= 20 ? 5 : 200 }))
    const ids = (await Promise.all(Array.from({ length: 80 }, () => notification(url)))).map((n) => n.webhookId)
    await only(ids)
    const service = makeService(
      { concurrency: 64, hostConcurrency: 4, hostConcurrencyMax: 10 },
      new WebhookHttp({ timeoutMs: 2000, allowPrivateTargets: true, connectionsPerHost: 10 }),
    )
    await sendAll(service, ids)
    expect(mostAtOnce('/slowing', (n) => (n <= 20 ? 5 : 200))).toBeLessThanOrEqual(10)
    const [failed] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = ANY($1) AND a.response_status_code <> 200`,
      [ids],
    )
    expect(failed!.n).toBe(0)
  })

  it('sends nothing to a host for the Retry-After of its 429, gives the claimed ones back unattempted, and serves other hosts meanwhile', async () => {
    const url = receiver.on('/paused', (n) => (n === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 }))
    const other = receiver.on('/other-host', () => ({ status: 200 })).replace('127.0.0.1', 'localhost')
    const first = await notification(url)
    const rest = (await Promise.all(Array.from({ length: 10 }, () => notification(url)))).map((n) => n.webhookId)
    await only([first.webhookId])
    const service = makeService({ concurrency: 64, hostConcurrency: 1, hostConcurrencyMax: 8, scheduleMs: [100, 100] })
    // The first attempt alone, answered 429 Retry-After: 2.
    await settle(service, first.webhookId, 1)
    expect(receiver.requests('/paused')).toHaveLength(1)
    const pausedAt = receiver.requests('/paused')[0]!.at
    const otherOne = await notification(other)
    await t.db.query(`UPDATE deliveries SET next_attempt_at = now() WHERE webhook_id = ANY($1)`, [[...rest, otherOne.webhookId]])
    await sendAll(service, [first.webhookId, ...rest, otherOne.webhookId], 10_000)
    const after = receiver.requests('/paused').slice(1)
    expect(after.length).toBeGreaterThanOrEqual(11)
    expect(Math.min(...after.map((r) => r.at)) - pausedAt).toBeGreaterThanOrEqual(1900)
    expect(receiver.requests('/other-host')[0]!.at - pausedAt).toBeLessThan(1500)
    // Given back, not attempted: one attempt each, the first's two.
    const counts = await t.db.query<{ attempt_count: number }>('SELECT attempt_count FROM deliveries WHERE webhook_id = ANY($1)', [rest])
    expect(counts.every((c) => c.attempt_count === 1)).toBe(true)
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
      }),
    ).toBe(false)
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
    const text = await registry.metrics()
    expect(text).toMatch(/delivery_attempts_total\{outcome="success"\} \d+/)
    expect(text).toMatch(/delivery_attempts_total\{outcome="retry"\} \d+/)
    expect(text).toMatch(/delivery_attempts_total\{outcome="failed"\} \d+/)
    expect(text).toMatch(/webhook_queue_depth\{status="retry_wait"\} \d+/)
  })
})
