import type { AddressInfo } from 'node:net'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { createRefreshService } from '../../test/support/worker-services'
import { pushReaderOf, type PushSettings, type PushSubscriber } from '../carriers/carrier-push'
import type { CarrierAdapter } from '../carriers/carrier'
import { createCarrierSimulator } from '../carriers/registry'
import { alertToken } from '../carriers/ups/track-alert/ups-alert.auth'
import { UPS } from '../carriers/ups/ups.plugin'
import type { upsSimulator } from '../carriers/ups/ups.simulator'
import { InboundRepository } from '../db/inbound.repository'
import { PushSubscriptionRepository } from '../db/push-subscription.repository'
import { RefreshRepository } from '../db/refresh.repository'
import { RouteRegistrationRepository } from '../db/route-registration.repository'
import { CircuitBreaker } from '../domain/circuit-breaker'
import { ServiceMetrics } from '../observability/metrics'
import type { CarrierSimulator } from '../simulator/simulator'
import { CarrierBudget } from './carrier-budget'
import { InboundApplyService } from './inbound-apply.service'
import { RefreshApply } from './refresh-apply'
import type { RefreshService } from './refresh.service'
import { PushSubscriptionService } from './push-subscription.service'

// UPS Track Alert end to end: the real subscription client and Track API client against the
// simulator's UPS over loopback, the simulator's pushes into the real gateway, the real database.
const STEP = 60_000
const POLL_MS = 7_200_000
const RECONCILE_MS = 43_200_000
let clock = Date.parse('2026-03-02T08:00:00Z')
let t: TestApp
let origin: string
let sim: CarrierSimulator
let subscriber: PushSubscriber
let subscriptions: PushSubscriptionService
let refresh: RefreshService
let inbound: InboundApplyService
let userId: number
const repository = () => new PushSubscriptionRepository(t.db)
const alerts = (UPS.simulator as ReturnType<typeof upsSimulator>).alerts
const settings = (version: string): PushSettings => ({ version, secret: 'simulator', clientId: 'simulator', callbackUrl: `${origin}/inbound/ups` })
const reconcile = {
  intervalMs: RECONCILE_MS,
  subscribed: (numbers: readonly string[]) => repository().subscribed('UPS', numbers),
  defer: (numbers: readonly string[]) => repository().deferPolls('UPS', numbers, RECONCILE_MS),
}
/** The refresh of UPS tasks through `adapter`, polled every POLL_MS, reconciled every RECONCILE_MS once subscribed. */
const upsRefresh = (adapter: CarrierAdapter) =>
  createRefreshService(
    t.db,
    new Map([['UPS', { adapter, budget: new CarrierBudget(1000) }]]),
    { pollIntervalMs: POLL_MS, expireAfterMs: 30 * 86_400_000, leaseMs: 60_000, claimLimit: 500, retryBaseMs: 30_000, retryMaxMs: 3_600_000 },
    new ServiceMetrics(new Registry(), { refreshLagSeconds: () => new RefreshRepository(t.db).refreshLagSeconds(['UPS']) }),
    { reconcile: new Map([['UPS', reconcile]]) },
  )
const connection = () => ({ baseUrl: sim.urlOf(UPS.simulator), credentials: { clientId: 'id', clientSecret: 'secret' }, timeoutMs: 2000 })

beforeAll(async () => {
  t = await createTestApp()
  userId = (await t.createUser()).userId
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  sim = createCarrierSimulator({ stepMs: STEP, now: () => clock, credentials: { ups: { clientId: 'id', clientSecret: 'secret' } } })
  await sim.start()
  subscriber = UPS.pushes!.createSubscriber(connection(), settings('v2'))
  subscriptions = new PushSubscriptionService(repository(), new RouteRegistrationRepository(t.db), [
    { carrierCode: 'UPS', pushes: UPS.pushes!, subscriber, circuit: new CircuitBreaker(), reconcileMs: RECONCILE_MS },
  ])
  const refreshRepository = new RefreshRepository(t.db)
  refresh = upsRefresh(UPS.createAdapter(connection()))
  inbound = new InboundApplyService(t.db, new InboundRepository(t.db), refreshRepository, new RefreshApply(t.db, 30 * 86_400_000), {
    readers: new Map([['ups', pushReaderOf('UPS', UPS.pushes!)]]),
    reconcileMs: new Map([['UPS', RECONCILE_MS]]),
    terminalRefreshMs: new Map([['UPS', 60_000]]),
  })
})
afterAll(async () => {
  await subscriber.close()
  await sim.stop()
  await t.close()
})
beforeEach(async () => {
  await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL')
  await subscriptions.runRound()
})

let seq = 0
// 1Z + 16, as UPS Track Alert takes them (TA… follows the simulator's delivered story).
const numberOf = () => `1ZTA${String(++seq * 1000 + (Date.now() % 1000)).padStart(14, '0')}`
async function subscribe(trackingNumber: string): Promise<number> {
  return (await t.services.subscriptions.subscribe(userId, { carrierCode: 'UPS', trackingNumber, callbackUrl: 'https://shop.example/hook' })).taskId
}
async function task(taskId: number) {
  const [row] = await t.db.query<{ standard_status: string; milestone: string; events: number; due_in_s: number | null }>(
    `SELECT t.standard_status, t.milestone, (SELECT count(*)::int FROM tracking_events WHERE task_id = t.id) AS events,
            EXTRACT(EPOCH FROM s.next_refresh_at - now())::float8 AS due_in_s
       FROM tracking_tasks t JOIN task_schedule s ON s.task_id = t.id WHERE t.id = $1`,
    [taskId],
  )
  return row!
}
const dueNow = (taskId: number) => t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = $1', [taskId])
const subscriptionRequests = () => sim.stats().carriers.ups!.subscriptionRequests
const stateOf = async (number: string) => (await repository().states('UPS')).find((s) => s.trackingNumber === number)
/** Pushes what the simulator has for the service, then applies what the gateway stored. */
async function pushAndApply(): Promise<number> {
  const taken = await sim.pushNow(origin)
  while (await inbound.runRound());
  return taken
}

describe('UPS Track Alert', () => {
  it('subscribes a task’s number once, then polls it only to reconcile, its news arriving by push and merging with the polled history', async () => {
    const number = numberOf()
    const taskId = await subscribe(number)
    // The backfill: one Track API poll at subscribe time (UPS keeps no history for pushes).
    expect(await refresh.runRound('UPS')).toMatchObject({ claimed: 1, applied: 1 })
    expect(await task(taskId)).toMatchObject({ standard_status: 'pending', events: 1 })
    expect((await task(taskId)).due_in_s).toBeGreaterThan(POLL_MS / 1000 - 60)

    const before = subscriptionRequests()
    expect(await subscriptions.runRound()).toMatchObject({ subscribed: 1 })
    await subscriptions.runRound()
    expect(subscriptionRequests() - before).toBe(1)
    expect(await stateOf(number)).toMatchObject({ state: 'subscribed' })
    expect((await stateOf(number))!.subscribedUntil!.getTime() - Date.now()).toBeGreaterThan(13.9 * 86_400_000)

    // Subscribed: its next poll moves from the poll's pace to the reconciliation's, and stays there.
    expect((await task(taskId)).due_in_s).toBeGreaterThan(RECONCILE_MS / 1000 - 60)
    await dueNow(taskId)
    await refresh.runRound('UPS')
    expect((await task(taskId)).due_in_s).toBeGreaterThan(RECONCILE_MS / 1000 - 60)

    // Two scans later: each pushed once, one event a POST, applied through the refresh's apply.
    clock += 2 * STEP
    expect(await pushAndApply()).toBeGreaterThanOrEqual(2)
    expect(await task(taskId)).toMatchObject({ standard_status: 'in_transit', milestone: 'in_transit', events: 3 })
    await pushAndApply()
    expect((await task(taskId)).events).toBe(3)

    // A reconciliation poll of the same history adds nothing: a pushed scan and its Track API activity are one event.
    await dueNow(taskId)
    await refresh.runRound('UPS')
    expect(await task(taskId)).toMatchObject({ standard_status: 'in_transit', events: 3 })
  })

  it('moves a task to the reconciliation’s pace when its number is subscribed while its first poll is out', async () => {
    const number = numberOf()
    const taskId = await subscribe(number)
    // The first poll and the subscription start together: the subscription settles while the poll holds the task.
    const ups = UPS.createAdapter(connection())
    const racing = upsRefresh({ ...ups, fetch: async (numbers: string[]) => (await subscriptions.runRound(), ups.fetch(numbers)) })
    expect(await racing.runRound('UPS')).toMatchObject({ claimed: 1, applied: 1 })
    expect((await stateOf(number))?.state).toBe('subscribed')
    expect((await task(taskId)).due_in_s).toBeGreaterThan(RECONCILE_MS / 1000 - 60)
    await ups.close()
  })

  it('reads a delivery by push at once, and fetches the task once more then (and never after)', async () => {
    const number = numberOf()
    const taskId = await subscribe(number)
    await refresh.runRound('UPS')
    await subscriptions.runRound()
    clock += 4 * STEP
    expect(await pushAndApply()).toBeGreaterThanOrEqual(4)
    const delivered = await task(taskId)
    expect(delivered).toMatchObject({ standard_status: 'delivered', milestone: 'delivered', events: 5 })
    // Terminal, but due once more within the minute, and decided by that fetch whatever it says (no fingerprint to match).
    expect(delivered.due_in_s).toBeGreaterThan(0)
    expect(delivered.due_in_s).toBeLessThanOrEqual(60)
    const [stored] = await t.db.query<{ answer_fingerprint: string | null }>('SELECT answer_fingerprint FROM tracking_tasks WHERE id = $1', [taskId])
    expect(stored!.answer_fingerprint).toBeNull()
    await dueNow(taskId)
    expect(await refresh.runRound('UPS')).toMatchObject({ claimed: 1 })
    expect(await task(taskId)).toMatchObject({ standard_status: 'delivered', events: 5, due_in_s: null })
  })

  it('subscribes again before the 14 days end while the task is active, and not once it has ended', async () => {
    const number = numberOf()
    const taskId = await subscribe(number)
    await subscriptions.runRound()
    await t.db.query(`UPDATE push_subscriptions SET subscribed_until = now() + interval '20 hours' WHERE tracking_number = $1`, [number])
    const before = subscriptionRequests()
    expect(await subscriptions.runRound()).toMatchObject({ subscribed: 1 })
    expect(subscriptionRequests() - before).toBe(1)
    expect((await stateOf(number))!.subscribedUntil!.getTime() - Date.now()).toBeGreaterThan(13.9 * 86_400_000)

    await t.db.query(`UPDATE push_subscriptions SET subscribed_until = now() + interval '20 hours' WHERE tracking_number = $1`, [number])
    await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL WHERE task_id = $1', [taskId])
    expect(await subscriptions.runRound()).toMatchObject({ subscribed: 0 })
    expect(subscriptionRequests() - before).toBe(1)
  })

  it('looks for new numbers among the newest tasks between sweeps, and at every task of the carrier at a sweep (a task active again)', async () => {
    let now = Date.now()
    const service = new PushSubscriptionService(
      repository(),
      new RouteRegistrationRepository(t.db),
      [{ carrierCode: 'UPS', pushes: UPS.pushes!, subscriber, circuit: new CircuitBreaker(), reconcileMs: RECONCILE_MS }],
      () => now,
    )
    const older = numberOf()
    const olderId = await subscribe(older)
    await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL WHERE task_id = $1', [olderId])
    await service.runRound()
    // Far later task ids (other tasks created meanwhile): the older task is out of a round's look.
    const [newest] = await t.db.query<{ id: string }>('SELECT max(id)::text AS id FROM tracking_tasks')
    await t.db.query(`ALTER TABLE tracking_tasks ALTER COLUMN id RESTART WITH ${Number(newest!.id) + 5000}`)
    await subscribe(numberOf())
    await service.runRound()
    const newer = numberOf()
    await subscribe(newer)
    await dueNow(olderId)
    expect(await service.runRound()).toMatchObject({ subscribed: 1 })
    expect(await stateOf(newer)).toMatchObject({ state: 'subscribed' })
    expect(await stateOf(older)).toBeUndefined()
    now += 600_000
    expect(await service.runRound()).toMatchObject({ subscribed: 1 })
    expect(await stateOf(older)).toMatchObject({ state: 'subscribed' })
  })

  it('never asks again for a number UPS refuses, and keeps polling its task as before', async () => {
    // An IMpb number (UPS Mail Innovations): UPS's own tracking, but no Track Alert number.
    const number = `9274893150770851${String(++seq).padStart(6, '0')}0063`.slice(0, 26)
    const taskId = await subscribe(number)
    expect(await subscriptions.runRound()).toMatchObject({ refused: 1 })
    expect(await stateOf(number)).toMatchObject({ state: 'refused' })
    const before = subscriptionRequests()
    await subscriptions.runRound()
    expect(subscriptionRequests() - before).toBe(0)
    await dueNow(taskId)
    await refresh.runRound('UPS')
    const due = (await task(taskId)).due_in_s!
    expect(due).toBeGreaterThan(POLL_MS / 1000 - 60)
    expect(due).toBeLessThan(RECONCILE_MS / 1000 - 60)
  })

  it('keeps polling when UPS refuses the subscription call, with the subscriptions’ own circuit open and the carrier’s polls untouched', async () => {
    const number = numberOf()
    const taskId = await subscribe(number)
    const refused = UPS.pushes!.createSubscriber({ ...connection(), credentials: { clientId: 'id', clientSecret: 'wrong' } }, settings('v2'))
    const circuit = new CircuitBreaker()
    const failing = new PushSubscriptionService(repository(), new RouteRegistrationRepository(t.db), [
      { carrierCode: 'UPS', pushes: UPS.pushes!, subscriber: refused, circuit, reconcileMs: RECONCILE_MS },
    ])
    await t.db.query('DELETE FROM push_subscriptions WHERE tracking_number = $1', [number])
    expect(await failing.runRound()).toMatchObject({ subscribed: 0 })
    expect(circuit.view(Date.now())).toMatchObject({ state: 'open' })
    expect(await stateOf(number)).toMatchObject({ state: 'subscribing', subscribedUntil: null })
    await dueNow(taskId)
    expect(await refresh.runRound('UPS')).toMatchObject({ claimed: 1, applied: 1 })
    expect((await task(taskId)).due_in_s).toBeLessThan(RECONCILE_MS / 1000 - 60)
    // More than UPS takes in one request is never sent (UPS rejects the whole submission).
    await expect(refused.subscribe(Array.from({ length: 101 }, numberOf))).rejects.toThrow(/100 numbers/)
    await refused.close()
  })

  it('subscribes with v1 (destination and our credential), and takes UPS’s pushes with that credential', async () => {
    const v1 = UPS.pushes!.createSubscriber(connection(), settings('v1'))
    const number = numberOf()
    const taskId = await subscribe(number)
    await refresh.runRound('UPS')
    const v1Service = new PushSubscriptionService(repository(), new RouteRegistrationRepository(t.db), [
      { carrierCode: 'UPS', pushes: UPS.pushes!, subscriber: v1, circuit: new CircuitBreaker(), reconcileMs: RECONCILE_MS },
    ])
    await v1Service.runRound()
    expect(alerts.subscriptions().get(number)).toMatchObject({ version: 'v1', credential: 'simulator', path: '/inbound/ups' })
    clock += STEP
    expect(await pushAndApply()).toBeGreaterThanOrEqual(1)
    expect((await task(taskId)).events).toBe(2)
    await v1.close()
  })
})

describe('the gateway’s UPS source', () => {
  const event = (trackingNumber: string) =>
    JSON.stringify({
      trackingNumber,
      gmtActivityDate: '20260302',
      gmtActivityTime: '120000',
      activityStatus: { type: 'I', code: 'AR', description: 'Arrived', descriptionCode: '005' },
    })
  const post = (headers: Record<string, string>, body = event('1ZUNKNOWN000000000')) =>
    fetch(`${origin}/inbound/ups`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  const token = (authorization: string, body = 'grant_type=client_credentials') =>
    fetch(`${origin}/inbound/ups/token`, { method: 'POST', headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' }, body })
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

  it('refuses a push without our credential or token, with a wrong one, a forged or an expired token, or a token without our client id', async () => {
    expect((await post({})).status).toBe(401)
    expect((await post({ credential: 'guess' })).status).toBe(401)
    expect((await post({ authorization: 'Bearer 9999999999.forgedforgedforgedforgedforgedforgedforgedfor', 'x-api-key': 'simulator' })).status).toBe(401)
    const expired = alertToken('simulator', Date.now() - 2 * 3_600_000)
    expect((await post({ authorization: `Bearer ${expired}`, 'x-api-key': 'simulator' })).status).toBe(401)
    const live = alertToken('simulator', Date.now())
    expect((await post({ authorization: `Bearer ${live}`, 'x-api-key': 'someone-else' })).status).toBe(401)
    const refused = await post({})
    expect((await refused.json()) as unknown).toMatchObject({ code: 401, data: { error: 'unauthorized' } })
  })

  it('grants a token (OAuth client credentials, client_secret_basic) only for our client id and secret, and takes pushes with it', async () => {
    expect((await token(basic('simulator', 'wrong'))).status).toBe(401)
    expect((await token(basic('other', 'simulator'))).status).toBe(401)
    expect((await token(basic('simulator', 'simulator'), 'grant_type=password')).status).toBe(401)
    const answer = await token(basic('simulator', 'simulator'))
    expect(answer.status).toBe(200)
    const granted = (await answer.json()) as { access_token: string; token_type: string; expires_in: number }
    expect(granted).toMatchObject({ token_type: 'Bearer', expires_in: 3600 })
    const pushed = await post({ authorization: `Bearer ${granted.access_token}`, 'x-api-key': 'simulator' }, event(`1ZTOKEN${Date.now()}`))
    expect(pushed.status).toBe(200)
    expect(((await pushed.json()) as { data: unknown }).data).toMatchObject({ received: true, duplicate: false })
  })

  it('answers a push for a number no task has 200 and counts it unknown; the same push twice is stored once', async () => {
    const body = event(`1ZNOTASK${Date.now()}`)
    expect((await post({ credential: 'simulator' }, body)).status).toBe(200)
    expect(((await (await post({ credential: 'simulator' }, body)).json()) as { data: unknown }).data).toMatchObject({ duplicate: true })
    while (await inbound.runRound());
    // Found by its digest: an applied push keeps no body.
    const [row] = await t.db.query<{ outcome: string; body: Buffer }>(
      `SELECT outcome, body FROM inbound_pushes WHERE source = 'ups' AND digest = encode(sha256(convert_to($1, 'UTF8')), 'hex')`,
      [body],
    )
    expect(row).toMatchObject({ outcome: 'unknown_number', body: Buffer.alloc(0) })
  })
})
