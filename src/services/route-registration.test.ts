import { Registry } from 'prom-client'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createRefreshService } from '../../test/support/worker-services'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { createCarrierSimulator } from '../carriers/registry'
import { SEVENTEENTRACK } from '../carriers/seventeentrack/seventeentrack.route'
import type { seventeenTrackSimulator } from '../carriers/seventeentrack/seventeentrack.simulator'
import { RefreshRepository } from '../db/refresh.repository'
import { RouteRegistrationRepository } from '../db/route-registration.repository'
import { CircuitBreaker } from '../domain/circuit-breaker'
import { ServiceMetrics } from '../observability/metrics'
import type { CarrierSimulator } from '../simulator/simulator'
import { CarrierBudget } from './carrier-budget'
import type { CarrierChannel, RefreshService } from './refresh.service'
import { REGISTRATION_SWEEP_MS, RouteRegistrationService, type RouteRegistrationRunner } from './route-registration.service'

// Carriers through 17TRACK end to end: the route's real client against the simulator's 17TRACK
// over loopback, the real database; registration, reading, stopping.
const STEP = 60_000
let clock = Date.parse('2026-03-02T08:00:00Z')
let t: TestApp
let sim: CarrierSimulator
let runner: RouteRegistrationRunner
let registrations: RouteRegistrationService
let refresh: RefreshService
let userId: number
const codes = SEVENTEENTRACK.carriers.map((c) => c.code)
const seventeen = SEVENTEENTRACK.simulator as ReturnType<typeof seventeenTrackSimulator>

beforeAll(async () => {
  t = await createTestApp()
  userId = (await t.createUser()).userId
  sim = createCarrierSimulator({ stepMs: STEP, now: () => clock })
  await sim.start()
  const client = SEVENTEENTRACK.createClient({ baseUrl: sim.urlOf(SEVENTEENTRACK.simulator), credentials: { apiKey: 'k' }, timeoutMs: 2000 })
  runner = { route: SEVENTEENTRACK, client, circuit: new CircuitBreaker() }
  registrations = new RouteRegistrationService(new RouteRegistrationRepository(t.db), [runner], () => clock)
  const channel: CarrierChannel = {
    adapter: client,
    budget: new CarrierBudget(1000),
    circuit: runner.circuit,
    serves: codes,
    recordOf: (task) => SEVENTEENTRACK.recordOf(task.carrierCode, task.trackingNumber),
  }
  const repository = new RefreshRepository(t.db)
  refresh = createRefreshService(
    t.db,
    new Map([[SEVENTEENTRACK.code, channel]]),
    { pollIntervalMs: 7_200_000, expireAfterMs: 30 * 86_400_000, leaseMs: 60_000, claimLimit: 500, retryBaseMs: 30_000, retryMaxMs: 3_600_000 },
    new ServiceMetrics(new Registry(), { refreshLagSeconds: () => repository.refreshLagSeconds(codes) }),
  )
})
afterAll(async () => {
  await runner.client.close()
  await sim.stop()
  await t.close()
})
beforeEach(async () => {
  await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL')
  await registrations.runRound()
})

let seq = 0
const numberOf = (prefix: string) => `${prefix}${String(++seq).padStart(7, '0')}${Date.now() % 1000}GB`
async function subscribe(trackingNumber: string, carrierCode = 'ROYALMAIL', user = userId): Promise<number> {
  return (await t.services.subscriptions.subscribe(user, { carrierCode, trackingNumber, callbackUrl: 'https://shop.example/hook' })).taskId
}
const stateOf = async (carrierCode: string, trackingNumber: string) =>
  (await new RouteRegistrationRepository(t.db).states([carrierCode])).find((r) => r.trackingNumber === trackingNumber)?.state
const simulated = (carrierCode: string, trackingNumber: string) => seventeen.registrations().get(SEVENTEENTRACK.recordOf(carrierCode, trackingNumber))
async function task(taskId: number) {
  const [row] = await t.db.query<{ standard_status: string; milestone: string; events: number }>(
    `SELECT standard_status, milestone, (SELECT count(*)::int FROM tracking_events WHERE task_id = $1) AS events FROM tracking_tasks WHERE id = $1`,
    [taskId],
  )
  return row!
}

describe('a carrier served through 17TRACK', () => {
  it('registers a new task’s number once, however many tasks and rounds, then reads it by gettrackinfo with its carrier key', async () => {
    const number = numberOf('RM')
    const first = await subscribe(number)
    const other = await subscribe(number, 'ROYALMAIL', (await t.createUser()).userId)
    const before = sim.stats().carriers['17track']!.tokenRequests
    expect(await registrations.runRound()).toMatchObject({ registered: 1 })
    await registrations.runRound()
    // One register call (the simulator counts register/stop calls as its "token" requests).
    expect(sim.stats().carriers['17track']!.tokenRequests - before).toBe(1)
    expect(await stateOf('ROYALMAIL', number)).toBe('registered')
    expect(simulated('ROYALMAIL', number)).toBe('tracking')

    expect(await refresh.runRound(SEVENTEENTRACK.code)).toMatchObject({ claimed: 2, applied: 2 })
    expect(await task(first)).toMatchObject({ standard_status: 'pending', milestone: 'info_received', events: 1 })
    clock += 3 * STEP
    await t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = ANY($1::bigint[])', [[first, other]])
    await refresh.runRound(SEVENTEENTRACK.code)
    expect(await task(other)).toMatchObject({ standard_status: 'in_transit', milestone: 'out_for_delivery', events: 4 })
  })

  it('leaves a number not registered yet pending (17TRACK: not registered), and reads it once registered', async () => {
    const number = numberOf('RM')
    const taskId = await subscribe(number, 'POSTNL')
    expect(await refresh.runRound(SEVENTEENTRACK.code)).toMatchObject({ claimed: 1, applied: 1 })
    expect(await task(taskId)).toMatchObject({ standard_status: 'pending', events: 0 })
    await registrations.runRound()
    await t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = $1', [taskId])
    await refresh.runRound(SEVENTEENTRACK.code)
    expect((await task(taskId)).events).toBeGreaterThan(0)
  })

  it('stops the number there when its last task is deleted, and restarts it (free) when a task of it is active again', async () => {
    const number = numberOf('RM')
    const kept = await subscribe(number, 'DPD')
    const second = await subscribe(number, 'DPD', (await t.createUser()).userId)
    await registrations.runRound()
    await t.services.tasks.delete(userId, kept)
    clock += REGISTRATION_SWEEP_MS
    await registrations.runRound()
    // A task of the number is still active: not stopped.
    expect(await stateOf('DPD', number)).toBe('registered')
    await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL WHERE task_id = $1', [second])
    // Stops read every registration: the next sweep's (a minute at most).
    expect(await registrations.runRound()).toMatchObject({ stopped: 0 })
    clock += REGISTRATION_SWEEP_MS
    expect(await registrations.runRound()).toMatchObject({ stopped: 1 })
    expect(await stateOf('DPD', number)).toBe('stopped')
    expect(simulated('DPD', number)).toBe('stopped')

    const before = sim.stats().carriers['17track']!.tokenRequests
    await t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = $1', [second])
    await registrations.runRound()
    expect(await stateOf('DPD', number)).toBe('registered')
    expect(simulated('DPD', number)).toBe('tracking')
    // A restart, not a second registration.
    expect(sim.stats().carriers['17track']!.tokenRequests - before).toBe(1)
  })

  it('between sweeps reads only the tasks created since the last round (by key): an old task active again waits for the sweep', async () => {
    const number = numberOf('RM')
    const old = await subscribe(number, 'POSTNL')
    await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL WHERE task_id = $1', [old])
    clock += REGISTRATION_SWEEP_MS
    await registrations.runRound()
    expect(await stateOf('POSTNL', number)).toBeUndefined()
    // More than a round's margin for late commits of tasks later.
    await t.db.query(
      `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, inactive_since)
       SELECT $1, 'FEDEX', $2 || g, 'https://shop.example/hook', now() FROM generate_series(1, 1100) g`,
      [userId, numberOf('WIN')],
    )
    await registrations.runRound()
    await t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = $1', [old])
    await registrations.runRound()
    expect(await stateOf('POSTNL', number)).toBeUndefined()
    clock += REGISTRATION_SWEEP_MS
    expect(await registrations.runRound()).toMatchObject({ registered: 1 })
    expect(await stateOf('POSTNL', number)).toBe('registered')
  })

  it('moves the record to the new carrier after a carrier change (free), rather than registering it again', async () => {
    const number = numberOf('RM')
    const taskId = await subscribe(number, 'JAPANPOST')
    await registrations.runRound()
    await t.db.query(`UPDATE tracking_tasks SET carrier_code = 'CHINAPOST' WHERE id = $1`, [taskId])
    await t.db.query(`UPDATE task_schedule SET carrier_code = 'CHINAPOST' WHERE task_id = $1`, [taskId])
    expect(await registrations.runRound()).toMatchObject({ registered: 1, stopped: 0 })
    expect(await stateOf('CHINAPOST', number)).toBe('registered')
    expect(await stateOf('JAPANPOST', number)).toBeUndefined()
    expect(simulated('CHINAPOST', number)).toBe('tracking')
    expect(simulated('JAPANPOST', number)).toBeUndefined()
  })

  it('registers the new record when 17TRACK will not move it (another task still has the old carrier)', async () => {
    const number = numberOf('RM')
    const moved = await subscribe(number, 'KOREAPOST')
    await subscribe(number, 'KOREAPOST', (await t.createUser()).userId)
    await registrations.runRound()
    await t.db.query(`UPDATE tracking_tasks SET carrier_code = 'SINGPOST' WHERE id = $1`, [moved])
    await t.db.query(`UPDATE task_schedule SET carrier_code = 'SINGPOST' WHERE task_id = $1`, [moved])
    await registrations.runRound()
    expect(await stateOf('SINGPOST', number)).toBe('registered')
    expect(await stateOf('KOREAPOST', number)).toBe('registered')
    expect(simulated('KOREAPOST', number)).toBe('tracking')
  })

  it('marks a number 17TRACK refuses as refused, never asking again, and leaves its task pending', async () => {
    const taskId = await subscribe('RM1', 'EVRI')
    expect(await registrations.runRound()).toMatchObject({ refused: 1 })
    expect(await stateOf('EVRI', 'RM1')).toBe('refused')
    expect(await registrations.runRound()).toMatchObject({ registered: 0, refused: 0 })
    expect((await task(taskId)).standard_status).toBe('pending')
  })
})
