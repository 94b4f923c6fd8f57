import { RecipientRepository } from '../db/recipient.repository'
import { AuditRepository } from '../db/audit.repository'
import { createRefreshService, createWebhookDelivery } from '../../test/support/worker-services'
import { FEDEX } from '../carriers/fedex/fedex.plugin'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { waitFor } from '../../test/support/wait-for'
import { WebhookReceiver } from '../../test/support/webhook-receiver'
import { FedexClient } from '../carriers/fedex/fedex.client'
import { SettingsRepository } from '../db/settings.repository'
import { OutboxRepository } from '../db/outbox.repository'
import type { FullTaskJson } from '../domain/task-document'
import { ServiceMetrics } from '../observability/metrics'
import { CarrierSimulator } from '../simulator/simulator'
import { createCarrierSimulator } from '../carriers/registry'
import { WebhookHttp } from '../webhooks/webhook-http'
import { CarrierBudget } from './carrier-budget'
import { RETENTION_BATCH, RetentionService } from './retention.service'

let t: TestApp
let sim: CarrierSimulator
let fedex: FedexClient
let receiver: WebhookReceiver
let userId: number

beforeAll(async () => {
  t = await createTestApp()
  userId = (await t.createUser()).userId
  // Stories one stage a second: every fetch of a number brings something new for a while.
  sim = createCarrierSimulator({ stepMs: 1000, trackDelayMs: 20 })
  await sim.start()
  fedex = new FedexClient({ baseUrl: sim.urlOf(FEDEX.simulator), clientId: 'id', clientSecret: 's', timeoutMs: 2000 })
  receiver = new WebhookReceiver()
  await receiver.start()
})
afterAll(async () => {
  await fedex.close()
  await sim.stop()
  await receiver.stop()
  await t.close()
})

const refreshService = (pollIntervalMs: number) =>
  createRefreshService(
    t.db,
    new Map([['FEDEX', { adapter: fedex, budget: new CarrierBudget(1000) }]]),
    { pollIntervalMs, expireAfterMs: 30 * 86_400_000, leaseMs: 30_000, claimLimit: 100, retryBaseMs: 100, retryMaxMs: 200 },
    new ServiceMetrics(new Registry()),
  )

async function subscribe(prefix: string, callbackUrl = 'https://shop.example/hook'): Promise<number> {
  return (
    await t.services.subscriptions.subscribe(userId, {
      carrierCode: 'FEDEX',
      trackingNumber: `${prefix}${Date.now()}${Math.random().toString(36).slice(2, 8)}`,
      callbackUrl,
    })
  ).taskId
}

describe('updatedAt', () => {
  it('moves when what the user sees changes, not on a fetch that found nothing new', async () => {
    const taskId = await subscribe('UPD')
    await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL WHERE task_id <> $1', [taskId])
    const service = refreshService(3_600_000)
    const full = async () => JSON.parse(await t.services.tasks.get(userId, taskId)) as FullTaskJson
    const updatedAt = async () => Date.parse((await full()).updatedAt)
    const created = await updatedAt()
    await service.runRound()
    const fetched = await updatedAt()
    expect(fetched).toBeGreaterThan(created)
    // Fetched again at once: the same stage, nothing new.
    await t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = $1', [taskId])
    await service.runRound()
    expect(await updatedAt()).toBe(fetched)
    expect(Date.parse((await full()).lastCheckedAt!)).toBeGreaterThan(fetched)
  })
})

describe('retention', () => {
  it('deletes tasks inactive for longer than retentionDays, in bounded batches, with what belongs to them; 0 keeps them', async () => {
    const old = await Promise.all(Array.from({ length: 3 }, () => subscribe('RETOLD')))
    const recent = await subscribe('RETNEW')
    const active = await subscribe('RETACT')
    await t.db.query(`UPDATE tracking_tasks SET inactive_since = now() - interval '3 days' WHERE id = ANY($1)`, [old])
    await t.db.query(`UPDATE tracking_tasks SET inactive_since = now() - interval '12 hours' WHERE id = $1`, [recent])
    await t.db.query(`INSERT INTO tracking_events (task_id, event_key, event_time) SELECT unnest($1::bigint[]), 'k', now()`, [old])
    const retention = new RetentionService(t.db, new SettingsRepository(t.db), new AuditRepository(t.db), new RecipientRepository(t.db))

    expect(await retention.runRound()).toBe(false)
    expect(await t.db.query('SELECT id FROM tracking_tasks WHERE id = ANY($1)', [old])).toHaveLength(3)

    await t.services.settings.update({ retentionDays: 1 })
    try {
      expect(await retention.runRound()).toBe(false)
      const left = await t.db.query<{ id: number }>('SELECT id FROM tracking_tasks WHERE id = ANY($1) ORDER BY id', [[...old, recent, active]])
      expect(left.map((r) => r.id)).toEqual([recent, active])
      expect(await t.db.query('SELECT 1 FROM tracking_events WHERE task_id = ANY($1)', [old])).toEqual([])

      // A backlog larger than a batch: one statement per batch, the loop told to go on.
      await t.db.query(
        `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, inactive_since)
         SELECT $1, 'FEDEX', 'RETBULK' || g, 'https://a.example/', now() - interval '5 days' FROM generate_series(1, $2::int) g`,
        [userId, RETENTION_BATCH + 10],
      )
      expect(await retention.runRound()).toBe(true)
      expect(await retention.runRound()).toBe(false)
      expect(await t.db.query(`SELECT 1 FROM tracking_tasks WHERE tracking_number LIKE 'RETBULK%'`)).toEqual([])
    } finally {
      await t.services.settings.update({ retentionDays: 0 })
    }
  })
})

describe('deletes under refresh and delivery load', () => {
  it('leave no orphan and bring nothing back: a refresh or delivery in flight cannot resurrect or half-keep a task', async () => {
    const callbackUrl = receiver.on('/deleting', () => ({ status: 200, delayMs: 15 }))
    const ids = await Promise.all(Array.from({ length: 120 }, () => subscribe('DELLOAD', callbackUrl)))
    await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL WHERE NOT (task_id = ANY($1))', [ids])
    const refresh = refreshService(50)
    const http = new WebhookHttp({ timeoutMs: 2000, allowPrivateTargets: true })
    const delivery = createWebhookDelivery(
      t.db,
      new OutboxRepository(t.db),
      http,
      { scheduleMs: [50, 50], leaseMs: 10_000, concurrency: 16, hostConcurrency: 16 },
      new ServiceMetrics(new Registry()),
      { warn: () => {} },
    )

    let running = true
    const loop = async (round: () => Promise<unknown>) => {
      while (running) {
        await round()
        await new Promise((r) => setTimeout(r, 5))
      }
    }
    const workers = [loop(() => refresh.runRound()), loop(() => delivery.runRound())]
    // Once the load is real (tasks fetched, their webhooks going out), and while it goes on (a
    // stage a second: new events, status changes, webhooks), delete half of them one by one.
    await waitFor(() => receiver.requests('/deleting').length >= 30, { what: 'the first webhooks' })
    const deleted: number[] = []
    for (const id of ids.filter((_, i) => i % 2 === 0)) {
      await t.services.tasks.delete(userId, id)
      deleted.push(id)
      await new Promise((r) => setTimeout(r, 15))
    }
    running = false
    await Promise.all(workers)
    await delivery.drain()
    await http.close()

    const [orphans] = await t.db.query<Record<string, number>>(
      `SELECT (SELECT count(*)::int FROM tracking_events e WHERE NOT EXISTS (SELECT 1 FROM tracking_tasks t WHERE t.id = e.task_id)) AS events,
              (SELECT count(*)::int FROM deliveries d WHERE NOT EXISTS (SELECT 1 FROM tracking_tasks t WHERE t.id = d.task_id)) AS deliveries,
              (SELECT count(*)::int FROM delivery_attempts a WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.id = a.delivery_id)) AS attempts,
              (SELECT count(*)::int FROM task_schedule s WHERE s.task_id = ANY($1)) AS schedules`,
      [deleted],
    )
    // Nothing of a deleted task is left, nor written again by a fetch or a delivery in flight.
    expect(orphans).toEqual({ events: 0, deliveries: 0, attempts: 0, schedules: 0 })
    // The load was real: the tasks that stayed were fetched and notified meanwhile.
    const [kept] = await t.db.query<{ events: number; deliveries: number }>(
      `SELECT (SELECT count(*)::int FROM tracking_events WHERE task_id = ANY($1)) AS events, (SELECT count(*)::int FROM deliveries WHERE task_id = ANY($1)) AS deliveries`,
      [ids.filter((id) => !deleted.includes(id))],
    )
    // Every task that stayed was fetched (an event at least) and notified; tasks being deleted
    // were notified too, before they went.
    expect(kept!.events).toBeGreaterThanOrEqual(60)
    expect(kept!.deliveries).toBeGreaterThanOrEqual(60)
    const notified = new Set(receiver.requests('/deleting').map((r) => (JSON.parse(r.body) as { data: { taskId: number } }).data.taskId))
    expect(deleted.filter((id) => notified.has(id)).length).toBeGreaterThan(0)
  }, 60_000)
})
