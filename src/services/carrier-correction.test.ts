import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { simulatorAdapter } from '../../test/support/simulator-adapter'
import { createRefreshService } from '../../test/support/worker-services'
import { CARRIERS, createCarrierSimulator } from '../carriers/registry'
import { RefreshRepository } from '../db/refresh.repository'
import { CircuitBreaker } from '../domain/circuit-breaker'
import type { FullTaskJson } from '../domain/task-document'
import { ServiceMetrics } from '../observability/metrics'
import type { CarrierSimulator } from '../simulator/simulator'
import { CarrierBudget } from './carrier-budget'
import { CarrierCorrectionService } from './carrier-correction.service'
import type { CarrierChannel, RefreshService } from './refresh.service'

// Through the simulator over HTTP (its ONLY<carrier> numbers are known to one carrier alone), the
// real adapters and the real database: subscribed with the wrong carrier, fetched, found stuck,
// tried with the others, moved.
let t: TestApp
let sim: CarrierSimulator
let channels: Map<string, CarrierChannel>
let refresh: RefreshService
let correction: CarrierCorrectionService

beforeAll(async () => {
  t = await createTestApp()
  sim = createCarrierSimulator({ stepMs: 0 })
  await sim.start()
  channels = new Map(
    CARRIERS.map((carrier) => [
      carrier.code,
      {
        adapter: simulatorAdapter(carrier, sim, 5_000),
        budget: new CarrierBudget(1000),
        circuit: new CircuitBreaker(),
      },
    ]),
  )
  const repository = new RefreshRepository(t.db)
  refresh = createRefreshService(
    t.db,
    channels,
    { pollIntervalMs: 7_200_000, expireAfterMs: 30 * 86_400_000, leaseMs: 60_000, claimLimit: 500, retryBaseMs: 30_000, retryMaxMs: 3_600_000 },
    new ServiceMetrics(new Registry(), { refreshLagSeconds: () => repository.refreshLagSeconds([]) }),
  )
  correction = new CarrierCorrectionService(t.db, channels)
})
afterAll(async () => {
  for (const channel of channels.values()) await channel.adapter.close()
  await sim.stop()
  await t.close()
})

async function subscribe(userId: number, carrierCode: string, trackingNumber: string): Promise<number> {
  return (await t.services.subscriptions.subscribe(userId, { carrierCode, trackingNumber, callbackUrl: 'https://shop.example/hook' })).taskId
}
const task = async (token: string, taskId: number): Promise<FullTaskJson> =>
  (await t.as(token, { method: 'GET', url: `/openapi/tracking-subscriptions/${taskId}` })).json().data
const settle = (token: string, payload: object) => t.as(token, { method: 'PUT', url: '/openapi/settings', payload })
/** Made `hours` ago, as far as auto-correct's clock is concerned. */
const age = (taskId: number, hours: number) =>
  t.db.query(`UPDATE tracking_tasks SET created_at = now() - make_interval(secs => $2::float8 * 3600) WHERE id = $1`, [taskId, hours])

describe('auto-correct', () => {
  it('tries each other candidate once, best first, and moves a stuck task to the first carrier that knows its number', async () => {
    const shop = await t.createUser('shop')
    const off = await t.createUser('off')
    const answer = await settle(shop.token, { carrierAutoCorrect: true, carrierAutoCorrectHours: 0.5 })
    expect(answer.statusCode).toBe(200)
    expect(answer.json().data).toEqual({
      carrierAutoCorrect: true,
      carrierAutoCorrectHours: 0.5,
      effective: { carrierAutoCorrect: true, carrierAutoCorrectHours: 0.5 },
    })
    // Known to GLS alone: La Poste, the better-ranked candidate (registry order), is asked first.
    const toGls = await subscribe(shop.userId, 'FEDEX', 'ONLYGLS1234567')
    const nowhere = await subscribe(shop.userId, 'FEDEX', 'NF123456789012')
    const tooYoung = await subscribe(shop.userId, 'FEDEX', 'ONLYGLS7654321')
    // La Poste knows it, and the shop already tracks it there: the task stays where it is.
    const pair = await subscribe(shop.userId, 'FEDEX', 'ONLYLAPOSTE456')
    const tracked = await subscribe(shop.userId, 'LAPOSTE', 'ONLYLAPOSTE456')
    const notAsked = await subscribe(off.userId, 'FEDEX', 'ONLYGLS1234567')
    await refresh.runRound()
    for (const id of [toGls, nowhere, pair, notAsked]) await age(id, 1)
    await age(tooYoung, 0.25)

    expect(await correction.runRound()).toBe(false)

    const moved = await task(shop.token, toGls)
    expect(moved).toMatchObject({
      carrierCode: 'GLS',
      standardStatus: 'pending',
      carrierChanges: [{ previousCarrierCode: 'FEDEX', carrierCode: 'GLS', reason: 'auto_correct' }],
      carrierCorrection: {
        outcome: 'moved',
        tried: [
          { carrierCode: 'LAPOSTE', outcome: 'not_found' },
          { carrierCode: 'GLS', outcome: 'found' },
        ],
      },
    })
    expect(moved.carrierCorrection!.finishedAt).not.toBeNull()
    expect(await task(shop.token, nowhere)).toMatchObject({
      carrierCode: 'FEDEX',
      carrierChanges: [],
      carrierCorrection: {
        outcome: 'not_found',
        tried: [
          { carrierCode: 'LAPOSTE', outcome: 'not_found' },
          { carrierCode: 'GLS', outcome: 'not_found' },
        ],
      },
    })
    expect(await task(shop.token, pair)).toMatchObject({
      carrierCode: 'FEDEX',
      carrierChanges: [],
      carrierCorrection: { outcome: 'conflict', tried: [{ carrierCode: 'LAPOSTE', outcome: 'found' }] },
    })
    expect((await task(shop.token, tracked)).carrierChanges).toEqual([])
    expect((await task(shop.token, tooYoung)).carrierCorrection).toBeNull()
    expect((await task(off.token, notAsked)).carrierCorrection).toBeNull()

    // Tried once: nothing is claimed again.
    const finished = (await task(shop.token, nowhere)).carrierCorrection
    await age(nowhere, 10)
    expect(await correction.runRound()).toBe(false)
    expect((await task(shop.token, nowhere)).carrierCorrection).toEqual(finished)
    const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM carrier_corrections')
    expect(rows[0]!.n).toBe(3)

    // The new carrier's next fetch fills the task in.
    await refresh.runRound('GLS')
    expect(await task(shop.token, toGls)).toMatchObject({ carrierCode: 'GLS', standardStatus: 'delivered', milestone: 'delivered' })
  })

  it('follows the back-office default for users who have not chosen, and skips a candidate whose circuit is open', async () => {
    await t.services.settings.update({ carrierAutoCorrect: 'on', carrierAutoCorrectHours: 2 })
    const shop = await t.createUser('defaults')
    expect((await t.as(shop.token, { method: 'GET', url: '/openapi/settings' })).json().data).toEqual({
      carrierAutoCorrect: null,
      carrierAutoCorrectHours: null,
      effective: { carrierAutoCorrect: true, carrierAutoCorrectHours: 2 },
    })
    const taskId = await subscribe(shop.userId, 'UPS', 'ONLYGLS5550001')
    await refresh.runRound('UPS')
    await age(taskId, 3)
    const laPoste = channels.get('LAPOSTE')!.circuit!
    for (let i = 0; i < 10; i++) laPoste.failed(Date.now(), 'down')
    try {
      await correction.runRound()
    } finally {
      laPoste.succeeded()
    }
    expect(await task(shop.token, taskId)).toMatchObject({
      carrierCode: 'GLS',
      carrierCorrection: {
        outcome: 'moved',
        tried: [
          { carrierCode: 'LAPOSTE', outcome: 'unavailable' },
          { carrierCode: 'GLS', outcome: 'found' },
        ],
      },
    })
    await t.services.settings.update({ carrierAutoCorrect: 'off', carrierAutoCorrectHours: 48 })
  })

  it('tries each task once when two workers look at the same time', async () => {
    const shop = await t.createUser('two workers')
    await settle(shop.token, { carrierAutoCorrect: true, carrierAutoCorrectHours: 1 })
    const numbers = ['ONLYGLS9000001', 'ONLYGLS9000002', 'ONLYGLS9000003', 'ONLYGLS9000004']
    const ids = await Promise.all(numbers.map((n) => subscribe(shop.userId, 'USPS', n)))
    await refresh.runRound('USPS')
    for (const id of ids) await age(id, 2)
    sim.resetStats()
    const other = new CarrierCorrectionService(t.db, channels)
    await Promise.all([correction.runRound(), other.runRound()])
    for (const id of ids) expect((await task(shop.token, id)).carrierCorrection!.tried).toHaveLength(2)
    // La Poste asked once and GLS once per number: eight requests, not sixteen.
    const stats = sim.stats().carriers
    expect([stats.laposte!.trackRequests, stats.gls!.trackRequests]).toEqual([4, 4])
  })

  it('refuses settings out of bounds', async () => {
    const shop = await t.createUser('bounds')
    for (const body of [
      { carrierAutoCorrect: true, carrierAutoCorrectHours: 0 },
      { carrierAutoCorrect: 'yes', carrierAutoCorrectHours: null },
      { carrierAutoCorrect: true },
      {
        carrierAutoCorrect: null,
        carrierAutoCorrectHours: 9000,
      },
    ]) {
      const res = await settle(shop.token, body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().data.error).toBe('validation_error')
    }
  })
})
