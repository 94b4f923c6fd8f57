import { FEDEX } from '../carriers/fedex/fedex.plugin'
import { createRefreshService, createWebhookDelivery } from '../../test/support/worker-services'
import { Registry } from 'prom-client'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { waitFor } from '../../test/support/wait-for'
import { WebhookReceiver, type ReceivedWebhook } from '../../test/support/webhook-receiver'
import { FedexClient } from '../carriers/fedex/fedex.client'
import { OutboxRepository } from '../db/outbox.repository'
import { EVENT_TYPES } from '../domain/event-types'
import { FULL_EVENT_FIELDS } from '../domain/task-document'
import { ServiceMetrics } from '../observability/metrics'
import { CarrierSimulator } from '../simulator/simulator'
import { createCarrierSimulator } from '../carriers/registry'
import { WebhookHttp } from '../webhooks/webhook-http'
import { CarrierBudget } from './carrier-budget'
import type { OutboxService } from './outbox.service'

// A parcel walks the failed-attempt story (label → picked up → in transit → out for delivery →
// failed attempt, the ETA a day later → out for delivery → delivered) while its user has a
// callback and three endpoints, and another user has one: who hears what, signed by whom.

const STEP = 60_000
let simClock = Date.now()
let t: TestApp
let sim: CarrierSimulator
let fedex: FedexClient
let receiver: WebhookReceiver
let http: WebhookHttp
let owner: Awaited<ReturnType<TestApp['createUser']>>
let stranger: Awaited<ReturnType<TestApp['createUser']>>

beforeAll(async () => {
  t = await createTestApp()
  owner = await t.createUser('shop')
  stranger = await t.createUser('other')
  sim = createCarrierSimulator({ stepMs: STEP, now: () => simClock })
  await sim.start()
  fedex = new FedexClient({ baseUrl: sim.urlOf(FEDEX.simulator), clientId: 'id', clientSecret: 's', timeoutMs: 2000 })
  receiver = new WebhookReceiver()
  await receiver.start()
  http = new WebhookHttp({ timeoutMs: 2000, allowPrivateTargets: true })
})
afterAll(async () => {
  await http.close()
  await fedex.close()
  await sim.stop()
  await receiver.stop()
  await t.close()
})

const refresh = () =>
  createRefreshService(
    t.db,
    new Map([['FEDEX', { adapter: fedex, budget: new CarrierBudget(1000) }]]),
    { pollIntervalMs: 3_600_000, expireAfterMs: 30 * 86_400_000, leaseMs: 30_000, claimLimit: 100, retryBaseMs: 100, retryMaxMs: 200 },
    new ServiceMetrics(new Registry()),
  )
const delivery = () =>
  createWebhookDelivery(
    t.db,
    new OutboxRepository(t.db),
    http,
    { scheduleMs: [50, 50], leaseMs: 10_000, concurrency: 16, hostConcurrency: 16 },
    new ServiceMetrics(new Registry()),
    {
      warn: () => {},
    },
  )

async function createEndpoint(token: string, body: object): Promise<{ endpointId: number; secret: string }> {
  const res = await t.as(token, { method: 'POST', url: '/openapi/webhook-endpoints', payload: body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data
}

/** Sends every delivery due until none is waiting. */
async function deliverAll(service: OutboxService): Promise<void> {
  await waitFor(
    async () => {
      await service.runRound()
      await service.drain()
      const [row] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE status IN ('pending', 'sending', 'retry_wait')`)
      return row!.n === 0
    },
    { what: 'every delivery to be sent' },
  )
}

const body = (r: ReceivedWebhook) => JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, unknown> }
const verifies = (secret: string, r: ReceivedWebhook) => {
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

describe('typed events to account endpoints', () => {
  it('sends each endpoint the events it chose, signed with its own secret; the callback keeps receiving exactly the original status_changed', async () => {
    const all = await createEndpoint(owner.token, { url: receiver.on('/all', () => ({ status: 200 })), eventTypes: EVENT_TYPES, description: 'everything' })
    const outForDelivery = await createEndpoint(owner.token, {
      url: receiver.on('/ofd', () => ({ status: 200 })),
      eventTypes: ['tracking.milestone_changed'],
      milestones: ['out_for_delivery'],
    })
    await createEndpoint(owner.token, { url: receiver.on('/uparcel-only', () => ({ status: 200 })), eventTypes: EVENT_TYPES, carrierCodes: ['uparcel'] })
    await createEndpoint(stranger.token, { url: receiver.on('/stranger', () => ({ status: 200 })), eventTypes: EVENT_TYPES })

    const trackingNumber = `FA${Date.now()}`
    const { taskId } = await t.services.subscriptions.subscribe(owner.userId, {
      carrierCode: 'FEDEX',
      trackingNumber,
      callbackUrl: receiver.on('/callback', () => ({ status: 200 })),
    })
    const service = refresh()
    const sender = delivery()
    // Each fetch sees one stage more (the first sees the label).
    for (let stage = 0; stage < 7; stage++) {
      await t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = $1', [taskId])
      expect((await service.runRound()).claimed).toBe(1)
      await deliverAll(sender)
      simClock += STEP
    }

    // The callback: the interface's status_changed only, the query answer's members, the user's secret.
    const callback = receiver.requests('/callback')
    expect(callback.length).toBeGreaterThanOrEqual(5)
    for (const r of callback) {
      expect(body(r).type).toBe('tracking.status_changed')
      expect(Object.keys(body(r).data)).not.toContain('milestone')
      expect(verifies(owner.webhookSecret, r)).toBe(true)
      expect(verifies(all.secret, r)).toBe(false)
    }

    // The endpoint with every type: each change, the full task, the endpoint's secret only.
    const received = receiver.requests('/all')
    for (const r of received) {
      expect(verifies(all.secret, r)).toBe(true)
      expect(verifies(owner.webhookSecret, r)).toBe(false)
      expect(body(r).data.taskId).toBe(taskId)
    }
    const ofType = (type: string) => received.filter((r) => body(r).type === type).map(body)
    expect(ofType('tracking.status_changed').length).toBe(callback.length)
    expect(ofType('tracking.milestone_changed').map((e) => [e.data.previousMilestone, e.data.milestone])).toEqual([
      ['pending', 'info_received'],
      ['info_received', 'in_transit'],
      ['in_transit', 'out_for_delivery'],
      ['out_for_delivery', 'failed_attempt'],
      ['failed_attempt', 'out_for_delivery'],
      ['out_for_delivery', 'delivered'],
    ])
    // The ETA appeared at the first fetch and moved a day at the failed attempt.
    const eta = ofType('tracking.eta_changed')
    expect(eta).toHaveLength(2)
    expect(Date.parse(eta[1]!.data.estimatedDeliveryAt as string) - Date.parse(eta[1]!.data.previousEstimatedDeliveryAt as string)).toBe(86_400_000)
    // Every event announced once, in events_added, which carries no events of its own.
    const added = ofType('tracking.events_added')
    const announced = added.flatMap((e) => e.data.newEvents as { eventTime: string; eventCode: string; milestone: string }[])
    expect(announced.map((e) => e.eventCode)).toEqual(['OC', 'PU', 'AR', 'OD', 'DE', 'OD', 'DL'])
    expect(announced.map((e) => e.milestone)).toEqual([
      'info_received',
      'in_transit',
      'in_transit',
      'out_for_delivery',
      'failed_attempt',
      'out_for_delivery',
      'delivered',
    ])
    expect(Object.keys(announced[0]!)).toEqual(Object.keys(FULL_EVENT_FIELDS))
    // Local times: written in Node for events_added, by the database for the full task, alike;
    // FedEx's offsets kept, none guessed for its pickup scan written without one.
    const local = (e: Record<string, unknown>) => [e.eventCode, e.localTime, e.utcOffset]
    const full = ofType('tracking.status_changed').at(-1)!.data.events as Record<string, unknown>[]
    expect(full.map(local)).toEqual(announced.map(local))
    expect(announced.map(local)).toContainEqual(['PU', null, null])
    for (const e of announced as unknown as { eventTime: string; localTime: string | null; utcOffset: string | null }[]) {
      if (e.utcOffset === null) continue
      expect(e.localTime!.endsWith(e.utcOffset)).toBe(true)
      expect(Date.parse(e.localTime!)).toBe(Date.parse(e.eventTime))
    }
    for (const e of added) expect(e.data).not.toHaveProperty('events')
    for (const e of ofType('tracking.status_changed')) expect((e.data.events as unknown[]).length).toBeGreaterThan(0)

    // The milestone filter: only the changes into out_for_delivery; the carrier filter and the
    // other user's endpoint: nothing.
    const ofd = receiver.requests('/ofd').map(body)
    expect(ofd.map((e) => [e.type, e.data.milestone])).toEqual([
      ['tracking.milestone_changed', 'out_for_delivery'],
      ['tracking.milestone_changed', 'out_for_delivery'],
    ])
    expect(receiver.requests('/ofd').every((r) => verifies(outForDelivery.secret, r))).toBe(true)
    expect(receiver.requests('/uparcel-only')).toEqual([])
    expect(receiver.requests('/stranger')).toEqual([])

    // Deleting the task tells the endpoint that wants tracking.deleted, with the task as it was.
    const before = received.length
    expect((await t.as(owner.token, { method: 'DELETE', url: `/openapi/tracking-subscriptions/${taskId}` })).statusCode).toBe(200)
    await deliverAll(sender)
    const deleted = receiver.requests('/all').slice(before).map(body)
    expect(deleted.map((e) => e.type)).toEqual(['tracking.deleted'])
    expect(deleted[0]!.data).toMatchObject({ taskId, trackingNumber, standardStatus: 'delivered', milestone: 'delivered' })
    expect(deleted[0]!.data.events).toHaveLength(7)
    expect(receiver.requests('/ofd')).toHaveLength(2)

    // The account log lists the owner's deliveries (the deleted task's endpoint deliveries are
    // gone with it, its tracking.deleted stays); never another user's.
    const log = (await t.as(owner.token, { method: 'GET', url: '/openapi/webhook-deliveries?limit=100' })).json().data
    expect(log.items.map((i: { eventType: string }) => i.eventType)).toEqual(['tracking.deleted'])
    expect((await t.as(stranger.token, { method: 'GET', url: '/openapi/webhook-deliveries' })).json().data.items).toEqual([])
  })
})
