import { Registry } from 'prom-client'
import { simulatorAdapter } from '../../test/support/simulator-adapter'
import { createRefreshService } from '../../test/support/worker-services'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FEDEX } from '../carriers/fedex/fedex.plugin'
import { createCarrierSimulator } from '../carriers/registry'
import { UPS } from '../carriers/ups/ups.plugin'
import { parseDocument, type FullTaskJson } from '../domain/task-document'
import { MIN_LANE_DELIVERIES } from '../domain/transit-times'
import { ServiceMetrics } from '../observability/metrics'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { CarrierBudget } from './carrier-budget'
import { type CarrierChannel, type RefreshService } from './refresh.service'

// Predicted delivery through the real refresh: tasks delivered by the simulator's stories (each at
// its last stage, the stages a minute apart), lanes learned as they are applied, predictions read
// back on the full task. Two users on different lanes: shop A ships FedEx, shop B ships UPS.
let t: TestApp
let service: RefreshService
let channels: Map<string, CarrierChannel>
const sim = createCarrierSimulator({ stepMs: 0 })
let shopA: number
let shopB: number

beforeAll(async () => {
  t = await createTestApp()
  shopA = (await t.createUser('shop-a')).userId
  shopB = (await t.createUser('shop-b')).userId
  await sim.start()
  const channel = (plugin: typeof FEDEX): CarrierChannel => ({
    adapter: simulatorAdapter(plugin, sim, 2000),
    budget: new CarrierBudget(1000),
  })
  channels = new Map([
    ['FEDEX', channel(FEDEX)],
    ['UPS', channel(UPS)],
  ])
  const options = { pollIntervalMs: 7_200_000, expireAfterMs: 30 * 86_400_000, leaseMs: 60_000, claimLimit: 500, retryBaseMs: 30_000, retryMaxMs: 3_600_000 }
  service = createRefreshService(t.db, channels, options, new ServiceMetrics(new Registry()))
})
afterAll(async () => {
  for (const channel of channels.values()) await channel.adapter.close()
  await sim.stop()
  await t.close()
})

let seq = 0
/** Subscribes `count` tasks and fetches them once: "DL…" numbers are delivered, "EX…" end in an exception (not terminal). */
async function shipped(userId: number, carrierCode: string, prefix: string, count = 1): Promise<number[]> {
  const items = Array.from({ length: count }, () => ({
    carrierCode,
    trackingNumber: `${prefix}${Date.now()}${++seq}`,
    callbackUrl: 'https://shop.example/hook',
  }))
  const ids = (await t.services.subscriptions.subscribeBatch(userId, { items })).map((r) => r.taskId)
  while ((await service.runRound()).claimed > 0);
  return ids
}

/**
 * Fetches a task again as a refresh now would, as if what the carrier says were news (its events
 * and the answer it was decided from forgotten, as a reused number's new shipment is): a change.
 */
async function changedAgain(taskId: number): Promise<void> {
  await t.db.query(`DELETE FROM tracking_events WHERE task_id = $1`, [taskId])
  await t.db.query(`UPDATE tracking_tasks SET inactive_since = NULL, answer_fingerprint = NULL WHERE id = $1`, [taskId])
  await t.db.query(`UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = $1`, [taskId])
  expect((await service.runRound()).applied).toBe(1)
}

const full = async (userId: number, taskId: number) => parseDocument<FullTaskJson>(await t.services.tasks.get(userId, taskId))
const sharing = (predictionSharing: 'all' | 'own') => t.services.settings.update({ predictionSharing })

describe('predicted delivery', () => {
  it('is null until a lane holds enough deliveries, then rests on the narrowest one and names it', async () => {
    const [early] = await shipped(shopA, 'FEDEX', 'EX')
    expect(await full(shopA, early!)).toMatchObject({ predictedDeliveryAt: null, prediction: null })
    await shipped(shopA, 'FEDEX', 'DL', MIN_LANE_DELIVERIES - 1)
    const [short] = await shipped(shopA, 'FEDEX', 'EX')
    expect((await full(shopA, short!)).prediction).toBeNull()
    await shipped(shopA, 'FEDEX', 'DL')

    const [task] = await Promise.all((await shipped(shopA, 'FEDEX', 'EX')).map((id) => full(shopA, id)))
    // The simulator's stages are a minute apart: every delivery took three minutes from pickup.
    expect(task!.prediction).toMatchObject({ basis: 'states', samples: MIN_LANE_DELIVERIES })
    const firstScan = Math.min(...task!.events!.filter((e) => e.milestone === 'in_transit').map((e) => Date.parse(e.eventTime)))
    const predicted = Date.parse(task!.predictedDeliveryAt!)
    expect(predicted - firstScan).toBe(30 * 60_000)
    expect(Date.parse(task!.prediction!.earliest)).toBeLessThan(predicted)
    expect(Date.parse(task!.prediction!.latest)).toBeGreaterThan(predicted)
    // The carrier's own ETA is left as the carrier gave it, and the interface's answer has neither member.
    expect(task!.estimatedDeliveryAt).not.toBe(task!.predictedDeliveryAt)
    const answer = parseDocument<Record<string, unknown>>(await t.services.subscriptions.find(shopA, { taskId: String(task!.taskId) }))
    expect(answer).not.toHaveProperty('predictedDeliveryAt')
    expect(answer).not.toHaveProperty('prediction')

    // A prediction is made at the task's changes: the task seen before the lane had enough gains
    // one at its next change.
    expect((await full(shopA, early!)).prediction).toBeNull()
    await changedAgain(early!)
    expect((await full(shopA, early!)).prediction).toMatchObject({ basis: 'states', samples: MIN_LANE_DELIVERIES })
  })

  it('is null for a terminal task and before the first scan', async () => {
    const [delivered] = await shipped(shopA, 'FEDEX', 'DL')
    expect(await full(shopA, delivered!)).toMatchObject({ standardStatus: 'delivered', predictedDeliveryAt: null, prediction: null })
    const [unknown] = await shipped(shopA, 'FEDEX', 'NF')
    expect(await full(shopA, unknown!)).toMatchObject({ standardStatus: 'pending', predictedDeliveryAt: null, prediction: null })
  })

  it('counts a delivery once, however often the delivered task is fetched again', async () => {
    const lane = async () =>
      (
        await t.db.query<{ deliveries: number }>(
          `SELECT deliveries FROM transit_lanes WHERE scope_user_id = 0 AND carrier_code = 'FEDEX' AND origin_country = '*'`,
        )
      )[0]!.deliveries
    const before = await lane()
    const [delivered] = await shipped(shopA, 'FEDEX', 'DL')
    expect(await lane()).toBe(before + 1)
    // Fetched again as a refresh now would, twice, each time as if its delivery were news.
    for (let i = 0; i < 2; i++) {
      await changedAgain(delivered!)
      expect(await t.db.query(`SELECT 1 FROM tracking_events WHERE task_id = $1 AND milestone = 'delivered'`, [delivered])).toHaveLength(1)
    }
    expect(await lane()).toBe(before + 1)
  })

  it("rests on the user's own deliveries only with predictionSharing = own", async () => {
    await shipped(shopB, 'UPS', 'DL', MIN_LANE_DELIVERIES)
    const [aOnUps] = await shipped(shopA, 'UPS', 'EX')
    const [aOnFedex] = await shipped(shopA, 'FEDEX', 'EX')
    const [bOnUps] = await shipped(shopB, 'UPS', 'EX')
    const [bOnFedex] = await shipped(shopB, 'FEDEX', 'EX')
    try {
      await sharing('all')
      expect((await full(shopA, aOnUps!)).prediction).toMatchObject({ basis: 'states', samples: MIN_LANE_DELIVERIES })
      expect((await full(shopB, bOnFedex!)).prediction).toMatchObject({ basis: 'states' })

      await sharing('own')
      // Shop A has delivered no UPS parcel, shop B no FedEx one: nothing to rest on.
      expect(await full(shopA, aOnUps!)).toMatchObject({ predictedDeliveryAt: null, prediction: null })
      expect(await full(shopB, bOnFedex!)).toMatchObject({ predictedDeliveryAt: null, prediction: null })
      expect((await full(shopA, aOnFedex!)).prediction).toMatchObject({ basis: 'states' })
      expect((await full(shopB, bOnUps!)).prediction).toMatchObject({ basis: 'states', samples: MIN_LANE_DELIVERIES })
      // The list's items are the same documents.
      const page = await t.services.tasks.list(shopA, { carrierCode: 'UPS' })
      expect(page.items.map((item) => parseDocument(item)).find((i) => i.taskId === aOnUps)).toMatchObject({ prediction: null })
    } finally {
      await sharing('all')
    }
  })
})
