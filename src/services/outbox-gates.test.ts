import type { Registry } from 'prom-client'
import { beforeAll, describe, expect, it } from 'vitest'
import { WebhookHttp } from '../webhooks/webhook-http'
import { outboxHarness } from '../../test/support/outbox-harness'
import type { TestApp } from '../../test/support/test-app'
import type { WebhookReceiver } from '../../test/support/webhook-receiver'
import { type OutboxService } from './outbox.service'
import { waitFor } from '../../test/support/wait-for'

// The outbox's per-target gate on the webhook channel: a receiving host's limit, how it adapts to
// the host's answers, and what a host with no room is sent.
const h = outboxHarness()
let t: TestApp
let receiver: WebhookReceiver
let registry: Registry
beforeAll(() => ({ t, receiver, registry } = h))
const { makeService, notification, settle, countCalls } = h

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
