import { UPARCEL } from '../carriers/uparcel/uparcel.plugin'
import { createRefreshService } from '../../test/support/worker-services'
import { FEDEX } from '../carriers/fedex/fedex.plugin'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { FedexClient } from '../carriers/fedex/fedex.client'
import { UparcelClient } from '../carriers/uparcel/uparcel.client'
import { RefreshRepository } from '../db/refresh.repository'
import { eventsViewOf } from '../db/events-view'
import { parseDocument } from '../domain/task-document'
import { ServiceMetrics } from '../observability/metrics'
import { CarrierSimulator } from '../simulator/simulator'
import { createCarrierSimulator } from '../carriers/registry'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { CarrierBudget } from './carrier-budget'
import { RefreshApply } from './refresh-apply'
import { type CarrierChannel, type RefreshService } from './refresh.service'
import { waitFor } from '../../test/support/wait-for'
import { ApiPressure } from './api-pressure'

// End to end through the simulator over HTTP: the real adapters, the real database.
const STEP = 60_000
let simClock = Date.now()
let t: TestApp
let sim: CarrierSimulator
let service: RefreshService
let repository: RefreshRepository
let registry: Registry
let channels: Map<string, CarrierChannel>
let userId: number

beforeAll(async () => {
  t = await createTestApp()
  userId = (await t.createUser()).userId
  sim = createCarrierSimulator({ stepMs: STEP, now: () => simClock, timeoutDelayMs: 1500 })
  await sim.start()
  channels = new Map<string, CarrierChannel>([
    [
      'FEDEX',
      { adapter: new FedexClient({ baseUrl: sim.urlOf(FEDEX.simulator), clientId: 'id', clientSecret: 's', timeoutMs: 500 }), budget: new CarrierBudget(1000) },
    ],
    [
      'UPARCEL',
      { adapter: new UparcelClient({ baseUrl: sim.urlOf(UPARCEL.simulator), apiKey: 'k', secretKey: 's', timeoutMs: 500 }), budget: new CarrierBudget(1000) },
    ],
  ])
  repository = new RefreshRepository(t.db)
  registry = new Registry()
  service = createRefreshService(
    t.db,
    channels,
    { pollIntervalMs: 7_200_000, expireAfterMs: 30 * 86_400_000, leaseMs: 60_000, claimLimit: 500, retryBaseMs: 30_000, retryMaxMs: 3_600_000 },
    new ServiceMetrics(registry, { refreshLagSeconds: () => repository.refreshLagSeconds(['FEDEX', 'UPARCEL']) }),
  )
})
afterAll(async () => {
  for (const channel of channels.values()) await channel.adapter.close()
  await sim.stop()
  await t.close()
})

// Each test starts with nothing due: tasks of earlier tests are parked.
beforeEach(async () => {
  await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL')
})

let seq = 0
async function subscribe(prefix: string, carrierCode = 'FEDEX'): Promise<number> {
  const trackingNumber = `${prefix}${Date.now()}${++seq}`
  return (await t.services.subscriptions.subscribe(userId, { carrierCode, trackingNumber, callbackUrl: 'https://shop.example/hook' })).taskId
}

async function makeDue(...ids: number[]): Promise<void> {
  await t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = ANY($1::bigint[])', [ids])
}

async function taskRow(id: number) {
  const [row] = await t.db.query(
    `SELECT standard_status, carrier_status, estimated_delivery_at, origin_address, destination_address, s.next_refresh_at,
            s.refresh_failures, (SELECT count(*)::int FROM tracking_events WHERE task_id = $1) AS events,
            (SELECT count(*)::int FROM deliveries WHERE task_id = $1) AS notifications,
            (SELECT count(*)::int FROM refresh_claims WHERE $1 = ANY(task_ids)) AS claims
       FROM tracking_tasks t JOIN task_schedule s ON s.task_id = t.id WHERE t.id = $1`,
    [id],
  )
  return row as Record<string, unknown>
}

const query = async (taskId: number) => parseDocument(await t.services.subscriptions.find(userId, { taskId: String(taskId) }))

describe.each(['FEDEX', 'UPARCEL'])('refreshing %s tasks', (carrier) => {
  it('follows a story from label to delivered: events merged without duplicates, one notification per change, polling stops at the end', async () => {
    const id = await subscribe('DL', carrier)
    expect((await service.runRound()).applied).toBe(1)
    let task = await query(id)
    expect(task).toMatchObject({ standardStatus: 'pending', carrierStatus: expect.any(String) })
    expect(task.events).toHaveLength(1)
    expect(task.latestWebhook).toMatchObject({ status: 'pending', attemptCount: 0, nextRetryAt: null, responseStatusCode: 0, errorMessage: '' })

    // Refetching the same stage changes nothing and notifies nobody.
    await makeDue(id)
    await service.runRound()
    expect(await taskRow(id)).toMatchObject({ events: 1, notifications: 1 })

    const statuses: string[] = []
    for (let stage = 1; stage <= 4; stage++) {
      simClock += STEP
      await makeDue(id)
      await service.runRound()
      task = await query(id)
      statuses.push(task.standardStatus)
      expect(task.events).toHaveLength(stage + 1)
    }
    expect(statuses).toEqual(['in_transit', 'in_transit', 'in_transit', 'delivered'])
    const times = task.events.map((e) => Date.parse(e.eventTime))
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(new Set(task.events.map((e) => `${e.eventTime}${e.eventCode}`)).size).toBe(5)
    expect(task.originAddress.country).toBe('US')
    expect(task.destinationAddress.city).toBe('Singapore')
    // The proof of delivery is the full task's (FedEx's receiver and signature; uParcel gives none).
    const full = parseDocument<{ proofOfDelivery: unknown }>(await t.services.tasks.get(userId, id))
    expect(full.proofOfDelivery).toEqual(
      carrier === 'FEDEX' ? { signedBy: 'J.TAN', location: 'Front Door', signatureAvailable: true, documentUrl: null } : null,
    )
    // label, picked up, in transit, out for delivery, delivered: five changes, five notifications.
    const row = await taskRow(id)
    expect(row).toMatchObject({ notifications: 5, next_refresh_at: null, claims: 0 })
    // The events kept on the task are exactly the merged events, rebuilt.
    const [view] = await t.db.query<{ same: boolean }>(`SELECT events_view::text = ${eventsViewOf('t.id')}::text AS same FROM tracking_tasks t WHERE id = $1`, [
      id,
    ])
    expect(view!.same).toBe(true)

    const [payload] = await t.db.query<{ payload: Record<string, unknown> }>('SELECT payload FROM deliveries WHERE task_id = $1 ORDER BY id DESC LIMIT 1', [id])
    expect(payload!.payload).toMatchObject({
      type: 'tracking.status_changed',
      data: { taskId: id, standardStatus: 'delivered', previousStandardStatus: 'in_transit', previousCarrierStatus: expect.any(String) },
    })
    expect(payload!.payload.data).not.toHaveProperty('latestWebhook')
    expect((payload!.payload.data as { events: unknown[] }).events).toHaveLength(5)

    // Terminal: not claimed again.
    expect((await service.runRound()).claimed).toBe(0)
  })

  it('keeps ETA and addresses when a later answer lacks them (rule 1)', async () => {
    const id = await subscribe('EX', carrier)
    await service.runRound()
    const before = await taskRow(id)
    expect(before.estimated_delivery_at).not.toBeNull()
    // The exception story's last stage: FedEx still sends the window; uParcel still sends an
    // estimate. Wipe them to stand for "the carrier returned nothing".
    await t.db.query(`UPDATE tracking_tasks SET estimated_delivery_at = '2030-01-01Z' WHERE id = $1`, [id])
    simClock += 4 * STEP
    await makeDue(id)
    await service.runRound()
    const after = await query(id)
    expect(after.standardStatus).toBe('exception')
    expect(after.estimatedDeliveryAt).not.toBeNull()
    expect(after.destinationAddress.city).toBe('Singapore')
  })
})

describe('carrier outcomes', () => {
  it('maps the returned and cancelled stories to their terminal statuses', async () => {
    const returned = await subscribe('RS')
    const cancelled = await subscribe('CA', 'UPARCEL')
    await service.runRound()
    simClock += 5 * STEP
    await makeDue(returned, cancelled)
    await service.runRound()
    expect((await query(returned)).standardStatus).toBe('returned')
    expect((await query(cancelled)).standardStatus).toBe('cancelled')
    expect((await taskRow(returned)).next_refresh_at).toBeNull()
  })

  it('leaves a not-found task pending and polls it again; after 30 days it expires, with a notification', async () => {
    const id = await subscribe('NF')
    await service.runRound()
    expect(await taskRow(id)).toMatchObject({ standard_status: 'pending', carrier_status: '', events: 0, notifications: 0 })
    expect((await taskRow(id)).next_refresh_at).not.toBeNull()
    await t.db.query(`UPDATE tracking_tasks SET created_at = now() - interval '31 days' WHERE id = $1`, [id])
    await makeDue(id)
    await service.runRound()
    expect(await taskRow(id)).toMatchObject({ standard_status: 'expired', notifications: 1, next_refresh_at: null })
  })

  it('expires a task without a new event for 30 days', async () => {
    const id = await subscribe('DL', 'UPARCEL')
    await service.runRound()
    await t.db.query(`UPDATE tracking_tasks SET last_new_event_at = now() - interval '30 days' WHERE id = $1`, [id])
    await makeDue(id)
    await service.runRound()
    expect((await query(id)).standardStatus).toBe('expired')
  })

  it.each(['F429', 'F500', 'FGARBAGE', 'FTIMEOUT'])('%s: the task is left unchanged, backs off, and recovers', async (prefix) => {
    const id = await subscribe(prefix)
    const other = await subscribe('DL')
    const before = await taskRow(id)
    const round = await service.runRound()
    expect(round).toMatchObject({ claimed: 2, failed: 2, applied: 0 })
    const after = await taskRow(id)
    expect(after).toMatchObject({
      standard_status: before.standard_status,
      carrier_status: before.carrier_status,
      events: 0,
      notifications: 0,
      refresh_failures: 1,
    })
    // Backed off into the future rather than hammering the carrier.
    const [due] = await t.db.query<{ secs: number }>(
      'SELECT EXTRACT(EPOCH FROM next_refresh_at - now())::float8 AS secs FROM task_schedule WHERE task_id = $1',
      [id],
    )
    expect(due!.secs).toBeGreaterThan(prefix === 'F429' ? 0.5 : 20)
    // Retry until the simulator's fault is spent; then the story goes on as usual.
    for (let i = 0; i < 3; i++) {
      // A 429's Retry-After paused the carrier: its pause runs out before the next request.
      await waitFor(() => [...channels.values()].every((channel) => !channel.budget.paused), { timeoutMs: 5000, what: "the carrier's pause" })
      await makeDue(id, other)
      await service.runRound()
    }
    expect(await taskRow(id)).toMatchObject({ standard_status: 'pending', events: 1, notifications: 1, refresh_failures: 0 })
  })

  it('renews an expired token and applies the answer in the same round', async () => {
    const id = await subscribe('FEXPIRED')
    expect((await service.runRound()).applied).toBe(1)
    expect((await taskRow(id)).events).toBe(1)
  })
})

describe('claims and leases', () => {
  it('never hands one task to two claims; a lost lease comes back when it runs out', async () => {
    const ids = [await subscribe('DL'), await subscribe('DL')]
    const first = await t.db.transaction((tx) => repository.claimDue(tx, 'FEDEX', ['FEDEX'], 10, 200))
    expect(first.map((c) => c.id).sort()).toEqual(ids.sort())
    expect(await t.db.transaction((tx) => repository.claimDue(tx, 'FEDEX', ['FEDEX'], 10, 200))).toEqual([])
    const again = await waitFor(
      async () => {
        const claimed = await t.db.transaction((tx) => repository.claimDue(tx, 'FEDEX', ['FEDEX'], 10, 60_000))
        return claimed.length > 0 ? claimed : undefined
      },
      { what: 'the lease to run out' },
    )
    expect(again.map((c) => c.id).sort()).toEqual(ids.sort())
    // The first claimer's lease is gone: its late answer is not applied.
    const outcome = await new RefreshApply(t.db, 86_400_000).apply([{ task: first[0]!, snapshot: undefined, fetchedAt: new Date(), nextRefreshInMs: 1000 }])
    expect(outcome).toEqual([{ applied: false }])
    await repository.releaseFailed(again.map((task) => ({ task, retryInMs: 1 })))
  })

  it('asks for a number held by two users once', async () => {
    const other = await t.createUser('second')
    const trackingNumber = `DLSHARED${Date.now()}`
    const a = (await t.services.subscriptions.subscribe(userId, { carrierCode: 'FEDEX', trackingNumber, callbackUrl: 'https://a.example/' })).taskId
    const b = (await t.services.subscriptions.subscribe(other.userId, { carrierCode: 'FEDEX', trackingNumber, callbackUrl: 'https://b.example/' })).taskId
    sim.resetStats()
    await service.runRound()
    expect(sim.stats().fetchesByNumber[trackingNumber]).toBe(1)
    expect((await taskRow(a)).events).toBe(1)
    expect((await taskRow(b)).events).toBe(1)
  })

  it('packs up to 30 FedEx numbers and 50 uParcel numbers per request', async () => {
    for (let i = 0; i < 61; i++) await subscribe('DL')
    for (let i = 0; i < 51; i++) await subscribe('DL', 'UPARCEL')
    sim.resetStats()
    const round = await service.runRound()
    expect(round).toMatchObject({ claimed: 112, applied: 112 })
    expect(sim.stats().carriers.fedex!.trackRequests).toBe(3)
    expect(sim.stats().carriers.uparcel!.trackRequests).toBe(2)
  })
})

describe('beside a saturated API (ROLE=all)', () => {
  const options = { pollIntervalMs: 7_200_000, expireAfterMs: 30 * 86_400_000, leaseMs: 60_000, claimLimit: 500, retryBaseMs: 30_000, retryMaxMs: 3_600_000 }
  const metrics = new ServiceMetrics(new Registry(), { refreshLagSeconds: async () => 0 })
  const beside = (pressure: ApiPressure) => createRefreshService(t.db, new Map([['FEDEX', channels.get('FEDEX')!]]), options, metrics, { pressure })
  const yielded = async () => (await metrics.refreshRoundsYielded.get()).values.find((v) => v.labels.carrier === 'FEDEX')?.value ?? 0

  it('waits for the requests in flight to fall below the mark, then claims as usual', async () => {
    const ids: number[] = []
    for (let i = 0; i < 40; i++) ids.push(await subscribe('API1ST'))
    const pressure = new ApiPressure(2)
    pressure.began()
    pressure.began()
    let settled = false
    const round = beside(pressure)
      .runRound('FEDEX')
      .finally(() => (settled = true))
    // Nothing is claimed while the API is saturated.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(settled).toBe(false)
    expect(await t.db.query(`SELECT 1 FROM task_schedule WHERE task_id = ANY($1::bigint[]) AND last_fetched_at IS NOT NULL`, [ids])).toEqual([])
    pressure.ended()
    expect(await round).toMatchObject({ claimed: 40, applied: 40, more: false })
    expect(await yielded()).toBe(0)
  })

  it('claims one request of the carrier when the API stays saturated through the wait', async () => {
    for (let i = 0; i < 40; i++) await subscribe('API1ST')
    const pressure = new ApiPressure(1)
    pressure.began()
    const service = beside(pressure)
    expect(await service.runRound('FEDEX')).toMatchObject({ claimed: FedexClient.maxBatchSize, more: true })
    expect(await yielded()).toBe(1)
    pressure.ended()
    expect(await service.runRound('FEDEX')).toMatchObject({ claimed: 10, more: false })
  })
})

describe('between poll ticks', () => {
  it('says when the next full request of a carrier falls due, and nothing while fewer are scheduled', async () => {
    const fedex = await Promise.all(Array.from({ length: 31 }, () => subscribe('DLSOON')))
    const uparcel = await Promise.all(Array.from({ length: 10 }, () => subscribe('DLSOON', 'UPARCEL')))
    // The 30th FedEx task (a full request) is due in 2.29 s, the 31st a minute later.
    await t.db.query(
      `UPDATE task_schedule t SET next_refresh_at = now() + make_interval(secs => CASE WHEN s.i = 31 THEN 60 ELSE 2 + s.i / 100.0 END)
         FROM unnest($1::bigint[]) WITH ORDINALITY AS s (id, i) WHERE t.task_id = s.id`,
      [fedex],
    )
    await t.db.query(`UPDATE task_schedule SET next_refresh_at = now() + interval '1 second' WHERE task_id = ANY($1::bigint[])`, [uparcel])
    const fedexRound = await service.runRound('FEDEX')
    expect(fedexRound.claimed).toBe(0)
    expect(fedexRound.wakeInMs).toBeGreaterThan(1_800)
    expect(fedexRound.wakeInMs).toBeLessThanOrEqual(2_300)
    // Ten uParcel numbers are a fifth of a request: the poll tick sends them.
    expect((await service.runRound('UPARCEL')).wakeInMs).toBeUndefined()
    expect((await service.runRound()).wakeInMs).toBeLessThanOrEqual(2_300)
  })

  it('counts a full request due already as due now, and leaves out the tasks another round holds', async () => {
    const ids = await Promise.all(Array.from({ length: 30 }, () => subscribe('DLNOW')))
    expect(await repository.dueInMs('FEDEX', ['FEDEX'], 30)).toBeLessThan(0)
    // Another worker's round holds them: not due for this one.
    const held = await t.db.transaction((tx) => new RefreshRepository(t.db).claimDue(tx, 'FEDEX', ['FEDEX'], 30, 60_000))
    expect(held.map((c) => c.id).sort()).toEqual(ids.sort())
    expect(await repository.dueInMs('FEDEX', ['FEDEX'], 30)).toBeNull()
    const round = await service.runRound('FEDEX')
    expect(round).toMatchObject({ claimed: 0 })
    expect(round.wakeInMs).toBeUndefined()
    await repository.releaseClaim(held[0]!.leaseToken, [])
    expect(await repository.dueInMs('FEDEX', ['FEDEX'], 30)).toBeLessThan(0)
  })
})

describe('answers arriving together', () => {
  it('are applied in shared transactions, each task as its own answer says', async () => {
    const numbers = Array.from({ length: 480 }, (_, i) => `TOGETHER${Date.now()}x${i}`)
    const ids: number[] = []
    for (let i = 0; i < numbers.length; i += 100) {
      const items = numbers.slice(i, i + 100).map((trackingNumber) => ({ carrierCode: 'FEDEX', trackingNumber, callbackUrl: 'https://shop.example/hook' }))
      ids.push(...(await t.services.subscriptions.subscribeBatch(userId, { items })).map((r) => r.taskId!))
    }
    // Transactions wait at a gate until all 16 answers (16 requests of 30 numbers) are in; the
    // round's claim, before any request, goes through.
    const transaction = t.db.transaction.bind(t.db)
    let transactions = 0
    let open = () => {}
    const gate = new Promise<void>((resolve) => (open = resolve))
    t.db.transaction = (async (work) => {
      if (sim.stats().carriers.fedex!.trackRequests === 0) return transaction(work)
      transactions++
      await gate
      return transaction(work)
    }) as typeof t.db.transaction
    // The answers counted as the adapter hands them over: each goes to the apply at once.
    const adapter = channels.get('FEDEX')!.adapter
    const fetch = adapter.fetch.bind(adapter)
    let answered = 0
    adapter.fetch = async (numbers) => {
      const lookups = await fetch(numbers)
      answered++
      return lookups
    }
    let round
    try {
      sim.resetStats()
      const running = service.runRound()
      await waitFor(() => answered === 16, { what: 'all 16 answers' })
      open()
      round = await running
    } finally {
      t.db.transaction = transaction
      adapter.fetch = fetch
    }
    expect(round).toMatchObject({ claimed: 480, applied: 480 })
    // The first answers' transactions (one on the embedded database, up to four on PostgreSQL),
    // then one for all the answers that queued behind them.
    expect(transactions).toBeLessThanOrEqual(5)
    const rows = await t.db.query<{ tracking_number: string; events: number; viewed: number; notifications: number; payload_number: string }>(
      `SELECT t.tracking_number, (SELECT count(*)::int FROM tracking_events e WHERE e.task_id = t.id) AS events,
              json_array_length(t.events_view) AS viewed,
              (SELECT count(*)::int FROM deliveries d WHERE d.task_id = t.id) AS notifications,
              (SELECT d.payload->'data'->>'trackingNumber' FROM deliveries d WHERE d.task_id = t.id) AS payload_number
         FROM tracking_tasks t WHERE t.id = ANY($1::bigint[]) ORDER BY t.id`,
      [ids],
    )
    expect(rows).toHaveLength(480)
    for (const row of rows) {
      expect(row.events).toBeGreaterThan(0)
      expect(row.viewed).toBe(row.events)
      expect(row.notifications).toBe(1)
      expect(row.payload_number).toBe(row.tracking_number)
    }
  })
})

describe('metrics', () => {
  it('count fetches by carrier and outcome, and report the refresh lag', async () => {
    // Its own fetches, whatever the tests before it did: a FedEx request that fails, one that
    // answers, and a uParcel number found.
    const counted = async (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(await registry.metrics())?.[1] ?? 0)
    const series = [
      'carrier_fetches_total{carrier="FEDEX",outcome="success"}',
      'carrier_fetches_total{carrier="FEDEX",outcome="server_error"}',
      'tracking_numbers_fetched_total{carrier="UPARCEL",result="found"}',
    ]
    const before = await Promise.all(series.map(counted))
    await subscribe('F500')
    await service.runRound()
    await subscribe('DLMETRICS')
    await subscribe('DLMETRICS', 'UPARCEL')
    await service.runRound()
    const after = await Promise.all(series.map(counted))
    expect(after.map((n, i) => n - before[i]!)).toEqual([1, 1, 1])
    expect(await registry.metrics()).toMatch(/refresh_lag_seconds \d/)
  })
})
