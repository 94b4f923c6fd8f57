import { Registry } from 'prom-client'
import { simulatorAdapter } from '../../test/support/simulator-adapter'
import { createRefreshService } from '../../test/support/worker-services'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { FEDEX } from '../carriers/fedex/fedex.plugin'
import { createCarrierSimulator } from '../carriers/registry'
import { UPARCEL } from '../carriers/uparcel/uparcel.plugin'
import { ConsoleRepository } from '../db/console.repository'
import { CircuitBreaker } from '../domain/circuit-breaker'
import { ServiceMetrics } from '../observability/metrics'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { waitFor } from '../../test/support/wait-for'
import { CarrierBudget } from './carrier-budget'
import { type CarrierChannel, type RefreshService } from './refresh.service'

// A carrier that is down costs nothing: its circuit opens, none of its tasks is claimed or
// rewritten while it is open, the other carriers go on, and once it is back its due tasks are
// fetched. Real database, real adapters, the simulator refusing one carrier's connections.
let t: TestApp
let userId: number
const sim = createCarrierSimulator({ stepMs: 0, timeoutDelayMs: 3000 })
let channels: Map<string, CarrierChannel>
let service: RefreshService
let registry: Registry
const OPTIONS = { pollIntervalMs: 7_200_000, expireAfterMs: 30 * 86_400_000, leaseMs: 60_000, claimLimit: 300, retryBaseMs: 50, retryMaxMs: 100 }

beforeAll(async () => {
  t = await createTestApp()
  userId = (await t.createUser()).userId
  await sim.start()
  const channel = (plugin: typeof FEDEX): CarrierChannel => ({
    adapter: simulatorAdapter(plugin, sim, 1000),
    budget: new CarrierBudget(1000),
    circuit: new CircuitBreaker({ failureThreshold: 3, baseOpenMs: 300, maxOpenMs: 600 }),
  })
  channels = new Map([
    ['FEDEX', channel(FEDEX)],
    ['UPARCEL', channel(UPARCEL)],
  ])
  registry = new Registry()
  service = createRefreshService(t.db, channels, OPTIONS, new ServiceMetrics(registry))
})
afterAll(async () => {
  for (const channel of channels.values()) await channel.adapter.close()
  await sim.stop()
  await t.close()
})
beforeEach(async () => {
  await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL')
  sim.setDown(FEDEX.simulator, false)
})

let seq = 0
async function subscribeMany(count: number, carrierCode: string, prefix = 'DL'): Promise<number[]> {
  const items = Array.from({ length: count }, () => ({
    carrierCode,
    trackingNumber: `${prefix}${Date.now()}${++seq}`,
    callbackUrl: 'https://shop.example/hook',
  }))
  return (await t.services.subscriptions.subscribeBatch(userId, { items })).map((r) => r.taskId)
}

/** The row versions of the task and its schedule: equal fingerprints, untouched rows. */
async function fingerprint(ids: number[]): Promise<string> {
  const rows = await t.db.query(
    `SELECT t.id, t.xmin::text AS task_version, s.xmin::text AS schedule_version
       FROM tracking_tasks t JOIN task_schedule s ON s.task_id = t.id WHERE t.id = ANY($1::bigint[]) ORDER BY t.id`,
    [ids],
  )
  return JSON.stringify(rows)
}

async function allDue(ids: number[]): Promise<void> {
  await waitFor(
    async () => {
      const [row] = await t.db.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM task_schedule WHERE task_id = ANY($1::bigint[]) AND next_refresh_at > now()`,
        [ids],
      )
      return row!.waiting === 0 || undefined
    },
    { what: 'the tasks to be due again' },
  )
}

describe('a carrier that is down', () => {
  it('opens its circuit, then claims and rewrites none of its tasks while the other carrier goes on', async () => {
    const fedexTasks = await subscribeMany(90, 'FEDEX')
    sim.setDown(FEDEX.simulator, true)
    const first = await service.runRound('FEDEX')
    expect(first).toMatchObject({ claimed: 90, failed: 90 })
    // Waiting since the due time they missed, however far their backoffs move them: the console's
    // backlog counts them and ages them from then.
    const backlog = () => new ConsoleRepository(t.db).refreshBacklog(['FEDEX'])
    const [waiting] = await backlog()
    expect(waiting!.due).toBe(90)
    const [since] = await t.db.query<{ failing: number; oldest_ms: number }>(
      `SELECT count(*)::int AS failing, EXTRACT(EPOCH FROM now() - min(due_since))::float8 * 1000 AS oldest_ms
         FROM task_schedule WHERE due_since IS NOT NULL AND task_id = ANY($1::bigint[])`,
      [fedexTasks],
    )
    expect(since!.failing).toBe(90)
    expect(waiting!.oldest_seconds).toBeGreaterThanOrEqual(since!.oldest_ms / 1000 - 1)
    expect(service.circuits().FEDEX).toMatchObject({ state: 'open', failures: 3 })
    expect(await registry.getSingleMetricAsString('carrier_circuit_open')).toContain('carrier_circuit_open{carrier="FEDEX"} 0')

    // Due again (their retry backoff is 50 ms here), but the circuit is open: nothing is read or written.
    await allDue(fedexTasks)
    const before = await fingerprint(fedexTasks)
    const uparcelTasks = await subscribeMany(10, 'UPARCEL')
    for (let i = 0; i < 20; i++) expect(await service.runRound('FEDEX')).toMatchObject({ claimed: 0 })
    expect(await fingerprint(fedexTasks)).toBe(before)
    expect(await registry.getSingleMetricAsString('carrier_circuit_open')).toContain('carrier_circuit_open{carrier="FEDEX"} 1')
    expect(await service.runRound('UPARCEL')).toMatchObject({ claimed: 10, applied: 10 })
    expect(uparcelTasks).toHaveLength(10)

    // Half open: one request's worth probes the carrier, still down: open again, for longer.
    await waitFor(async () => service.circuits().FEDEX!.state === 'half_open' || undefined, { what: 'the circuit to half-open' })
    expect(await service.runRound('FEDEX')).toMatchObject({ claimed: 30, failed: 30 })
    expect(service.circuits().FEDEX!.state).toBe('open')

    // Back: the next probe succeeds, the circuit closes, and every due task is fetched.
    sim.setDown(FEDEX.simulator, false)
    await waitFor(async () => service.circuits().FEDEX!.state === 'half_open' || undefined, { what: 'the circuit to half-open again' })
    await allDue(fedexTasks)
    expect(await service.runRound('FEDEX')).toMatchObject({ claimed: 30, applied: 30 })
    expect(service.circuits().FEDEX).toMatchObject({ state: 'closed', failures: 0 })
    expect(await service.runRound('FEDEX')).toMatchObject({ claimed: 60, applied: 60 })
    const [row] = await t.db.query<{ delivered: number }>(
      `SELECT count(*)::int AS delivered FROM tracking_tasks WHERE id = ANY($1::bigint[]) AND standard_status = 'delivered'`,
      [fedexTasks],
    )
    expect(row!.delivered).toBe(90)
    // Fetched: no longer waiting.
    expect((await backlog())[0]).toMatchObject({ due: 0, oldest_seconds: null })
  })

  it('stops a round once its circuit opens: the requests still waiting for the budget are not sent, their tasks not written', async () => {
    // Two requests a second (the first two at once), six requests' worth claimed: the first two
    // fail and open the circuit before the third may go.
    const fedex: CarrierChannel = {
      ...channels.get('FEDEX')!,
      budget: new CarrierBudget(2),
      circuit: new CircuitBreaker({ failureThreshold: 2, baseOpenMs: 60_000, maxOpenMs: 60_000 }),
    }
    const slow = createRefreshService(t.db, new Map([['FEDEX', fedex]]), { ...OPTIONS, claimLimit: 180 }, new ServiceMetrics(new Registry()))
    const ids = [...(await subscribeMany(90, 'FEDEX', 'ST')), ...(await subscribeMany(90, 'FEDEX', 'ST'))]
    sim.setDown(FEDEX.simulator, true)
    expect(await slow.runRound('FEDEX')).toMatchObject({ claimed: 180, failed: 60, skipped: 120 })
    const rows = await t.db.query<{ failures: number; held: boolean; n: number }>(
      `SELECT s.refresh_failures AS failures,
              EXISTS (SELECT 1 FROM refresh_claims c WHERE s.task_id = ANY(c.task_ids) AND c.lease_until > now() + interval '50 seconds') AS held,
              count(*)::int AS n
         FROM task_schedule s WHERE s.task_id = ANY($1::bigint[]) GROUP BY 1, 2 ORDER BY 1`,
      [ids],
    )
    // The two requests sent: failed, due again after their backoff. The four not sent: still
    // claimed, claimable again when the claim's 60 s lease lapses.
    expect(rows).toEqual([
      { failures: 0, held: true, n: 120 },
      { failures: 1, held: false, n: 60 },
    ])
  })

  it('never opens for numbers the carrier does not know', async () => {
    await subscribeMany(30, 'UPARCEL', 'NF')
    for (let i = 0; i < 5; i++) {
      await t.db.query(`UPDATE task_schedule s SET next_refresh_at = now() FROM tracking_tasks t WHERE t.id = s.task_id AND t.tracking_number LIKE 'NF%'`)
      expect(await service.runRound('UPARCEL')).toMatchObject({ claimed: 30, applied: 30 })
    }
    expect(service.circuits().UPARCEL!.state).toBe('closed')
  })

  it('does not delay another carrier: a round of one waits only for its own requests', async () => {
    await subscribeMany(1, 'FEDEX', 'FTIMEOUT')
    await subscribeMany(5, 'UPARCEL')
    let fedexDone = false
    const fedexRound = service.runRound('FEDEX').then((r) => {
      fedexDone = true
      return r
    })
    expect(await service.runRound('UPARCEL')).toMatchObject({ claimed: 5, applied: 5 })
    expect(fedexDone).toBe(false)
    expect(await fedexRound).toMatchObject({ claimed: 1, failed: 1 })
  })
})
