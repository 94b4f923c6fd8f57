import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { waitFor } from '../../test/support/wait-for'
import { createCarrierSimulator, pluginsByAggregatorKey } from '../carriers/registry'
import type { RouteClient } from '../carriers/carrier-route'
import { recordKey } from '../carriers/seventeentrack/seventeentrack.mapper'
import { SEVENTEENTRACK } from '../carriers/seventeentrack/seventeentrack.route'
import type { seventeenTrackSimulator } from '../carriers/seventeentrack/seventeentrack.simulator'
import { RouteRegistrationRepository } from '../db/route-registration.repository'
import { CircuitBreaker } from '../domain/circuit-breaker'
import type { CarrierSimulator } from '../simulator/simulator'
import { CarrierBudget } from './carrier-budget'
import { RouteDetection } from './route-detection'
import { RouteRegistrationService } from './route-registration.service'

// AUTO through 17TRACK's detection: the route's real client against the simulator's 17TRACK,
// which detects Royal Mail's and PostNL's shapes as 17TRACK detects carriers (registering without one).
let t: TestApp
let sim: CarrierSimulator
let client: RouteClient
let userId: number
const seventeen = SEVENTEENTRACK.simulator as ReturnType<typeof seventeenTrackSimulator>
const callbackUrl = 'https://shop.example/hook'
const calls = () => sim.stats().carriers['17track']!.tokenRequests

beforeAll(async () => {
  sim = createCarrierSimulator({ stepMs: 60_000 })
  await sim.start()
  client = SEVENTEENTRACK.createClient({ baseUrl: sim.urlOf(SEVENTEENTRACK.simulator), credentials: { apiKey: 'k' }, timeoutMs: 2000 })
  t = await createTestApp({ carrierDetector: new RouteDetection(SEVENTEENTRACK, client, new CarrierBudget(1000), pluginsByAggregatorKey(SEVENTEENTRACK)) })
  userId = (await t.createUser()).userId
})
afterAll(async () => {
  await client.close()
  await sim.stop()
  await t.close()
})

let seq = 0
const royalMail = () => `AD${String(100_000_000 + ((++seq * 7919 + (Date.now() % 10_000)) % 900_000_000))}GB`

describe('AUTO through 17TRACK', () => {
  it('asks 17TRACK for a number our formats cannot pick a carrier for, and the task takes the routed carrier it detects, registered once', async () => {
    const number = royalMail()
    expect(t.services.carriers.resolve('AUTO', number)).toMatchObject({ ok: false, error: 'carrier_not_detected' })
    const result = await t.services.subscriptions.subscribe(userId, { carrierCode: 'AUTO', trackingNumber: number, callbackUrl })
    expect(result).toMatchObject({ carrierCode: 'ROYALMAIL', result: 'created' })
    expect(seventeen.registrations().get(SEVENTEENTRACK.recordOf('ROYALMAIL', number))).toBe('tracking')
    // The registration round finds it registered: no second unit of quota (17TRACK: already registered, free).
    const links = new RouteRegistrationRepository(t.db)
    const registrations = new RouteRegistrationService(links, [{ route: SEVENTEENTRACK, client, circuit: new CircuitBreaker() }])
    await registrations.runRound()
    expect((await links.states(['ROYALMAIL'])).find((r) => r.trackingNumber === number)?.state).toBe('registered')
  })

  it('detects a batch’s unmatched AUTO items in one request, and leaves the others to our formats', async () => {
    const before = calls()
    const results = await t.services.subscriptions.subscribeBatch(userId, {
      items: [
        { carrierCode: 'AUTO', trackingNumber: royalMail(), callbackUrl },
        { carrierCode: 'AUTO', trackingNumber: `3SABCD${String(Date.now()).slice(-8)}`, callbackUrl },
        { carrierCode: 'AUTO', trackingNumber: '1Z5R89390357567127', callbackUrl },
      ],
    })
    expect(results.map((r) => [r.carrierCode, r.result])).toEqual([
      ['ROYALMAIL', 'created'],
      ['POSTNL', 'created'],
      ['UPS', 'created'],
    ])
    expect(calls() - before).toBe(1)
  })

  it('takes a plugin’s carrier when 17TRACK detects one of ours (a UPS InfoNotice number our formats do not know), left to the plugin', async () => {
    const number = `J${String(Date.now()).slice(-10)}`
    expect(t.services.carriers.resolve('AUTO', number)).toMatchObject({ ok: false, error: 'carrier_not_detected' })
    const result = await t.services.subscriptions.subscribe(userId, { carrierCode: 'AUTO', trackingNumber: number, callbackUrl })
    expect(result).toMatchObject({ carrierCode: 'UPS', result: 'created' })
    // Stopped at 17TRACK (free): it pushes nothing for a number our UPS client reads.
    await waitFor(() => seventeen.registrations().get(recordKey(100002, number)) === 'stopped', { what: 'the registration stopped at 17TRACK' })
    // Not a routed carrier's task: the registration round leaves it to the plugin.
    const links = new RouteRegistrationRepository(t.db)
    await new RouteRegistrationService(links, [{ route: SEVENTEENTRACK, client, circuit: new CircuitBreaker() }]).runRound()
    expect((await links.states(SEVENTEENTRACK.carriers.map((c) => c.code))).some((r) => r.trackingNumber === number)).toBe(false)
  })

  it('answers carrier_not_detected when 17TRACK cannot tell either (no quota spent), or cannot be reached', async () => {
    await expect(t.services.subscriptions.subscribe(userId, { carrierCode: 'AUTO', trackingNumber: 'QQ-UNKNOWN-123', callbackUrl })).rejects.toMatchObject({
      code: 'carrier_not_detected',
    })
    const down = SEVENTEENTRACK.createClient({ baseUrl: 'http://127.0.0.1:9', credentials: { apiKey: 'k' }, timeoutMs: 500 })
    const detection = new RouteDetection(SEVENTEENTRACK, down, new CarrierBudget(1000))
    expect(await detection.detect([royalMail()])).toEqual(new Map())
    await down.close()
    const slow = new RouteDetection(
      SEVENTEENTRACK,
      { detect: () => new Promise(() => {}), stop: async () => new Set() },
      new CarrierBudget(1000),
      new Map(),
      50,
    )
    expect(await slow.detect([royalMail()])).toEqual(new Map())
  })
})
