import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/database'
import { createCarrierSimulator } from '../../src/carriers/registry'
import { createRunDatabase, type RunDatabase } from '../support/run-database'
import { startService, type ServiceProcess } from '../support/service-process'
import { simulatorEnv } from '../support/simulator-env'
import { onPostgres } from '../support/test-database'
import { WebhookReceiver } from '../support/webhook-receiver'
import { waitFor } from '../support/wait-for'

/**
 * SIGKILL in the middle of refreshes and deliveries, then restart: no task duplicated, exactly one
 * notification per status change to the callback and one per event type to the user's endpoint
 * (none lost, none invented; every tracking event announced exactly once), every delivery ends
 * success, every lease released, and a receiver sees a webhook twice only where an attempt was cut
 * short.
 */

const ADMIN_TOKEN = 'crash-recovery-admin-token'
const TASKS = 300
// What each task's one change (its story's last stage, at the first fetch) tells the endpoint.
const ENDPOINT_TYPES = ['tracking.status_changed', 'tracking.milestone_changed', 'tracking.events_added']
const NOTIFICATIONS = TASKS * (1 + ENDPOINT_TYPES.length)
let sim: ReturnType<typeof createCarrierSimulator>
let receiver: WebhookReceiver

beforeAll(async () => {
  // Every story ends at its first fetch (one status change per task); answers take 400 ms.
  sim = createCarrierSimulator({ stepMs: 0, trackDelayMs: 400 })
  await sim.start()
  receiver = new WebhookReceiver()
  await receiver.start()
})
afterAll(async () => {
  await receiver.stop()
  await sim.stop()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function serviceEnv(run: RunDatabase, extra: Record<string, string> = {}) {
  return {
    ...run.env,
    ADMIN_TOKEN,
    RATE_LIMIT_PER_TOKEN: '0',
    RATE_LIMIT_PER_ADDRESS: '0',
    ...simulatorEnv(sim),
    REFRESH_CLAIM_LIMIT: '60',
    REFRESH_LEASE_SECONDS: '3',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_HOST_CONCURRENCY: '16',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1',
    ...extra,
  }
}

/** Creates the user and its endpoint, and subscribes the tasks; the endpoint's secret. */
async function subscribeAll(api: ServiceProcess, prefix: string, callbackUrl: string): Promise<string> {
  const created = (await (
    await fetch(`${api.baseUrl}/admin/api-users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{"name":"crash"}',
    })
  ).json()) as { data: { token: string } }
  const endpoint = await fetch(`${api.baseUrl}/openapi/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${created.data.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${callbackUrl}-endpoint`, eventTypes: ENDPOINT_TYPES }),
  })
  const { secret } = ((await endpoint.json()) as { data: { secret: string } }).data
  for (let b = 0; b < TASKS / 100; b++) {
    const items = Array.from({ length: 100 }, (_, i) => ({ carrierCode: i % 2 ? 'FEDEX' : 'UPARCEL', trackingNumber: `${prefix}${b}X${i}`, callbackUrl }))
    const res = await fetch(`${api.baseUrl}/openapi/tracking-subscriptions/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.data.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    })
    const results = ((await res.json()) as { data: { results: { result: string }[] } }).data.results
    expect(results.filter((r) => r.result === 'created')).toHaveLength(100)
  }
  return secret
}

async function settled(db: Database, timeoutMs = 60_000): Promise<void> {
  const state = async () => {
    const tasks = await db.query(
      `SELECT standard_status, refresh_failures, round(EXTRACT(EPOCH FROM next_refresh_at - now())) AS due_in, count(*)::int
         FROM tracking_tasks t JOIN task_schedule s ON s.task_id = t.id GROUP BY 1, 2, 3`,
    )
    const deliveries = await db.query(`SELECT status, attempt_count, count(*)::int FROM deliveries GROUP BY 1, 2`)
    return JSON.stringify({ tasks, deliveries })
  }
  await waitFor(
    async () => {
      const [row] = await db.query<{ open: number }>(
        `SELECT (SELECT count(*)::int FROM tracking_tasks WHERE standard_status <> 'delivered')
              + (SELECT count(*)::int FROM deliveries WHERE status NOT IN ('success', 'failed')) AS open`,
      )
      return row!.open === 0
    },
    { timeoutMs, intervalMs: 250, what: 'everything to settle' },
  ).catch(async (error: Error) => {
    throw new Error(`${error.message}: ${await state()}`)
  })
}

async function checkInvariants(db: Database, path: string, endpointSecret: string): Promise<string> {
  const [counts] = await db.query<Record<string, number>>(
    `SELECT (SELECT count(*)::int FROM tracking_tasks) AS tasks,
            (SELECT count(DISTINCT (user_id, carrier_code, tracking_number))::int FROM tracking_tasks) AS distinct_tasks,
            (SELECT count(*)::int FROM deliveries) AS deliveries,
            (SELECT count(*)::int FROM (SELECT 1 FROM deliveries GROUP BY task_id, endpoint_id, event_type HAVING count(*) <> 1) x) AS not_exactly_once,
            (SELECT count(DISTINCT (task_id, endpoint_id, event_type))::int FROM deliveries) AS kinds,
            (SELECT count(*)::int FROM deliveries WHERE status <> 'success') AS not_success,
            -- Tasks claimed by a live round and not fetched yet.
            (SELECT count(*)::int FROM refresh_claims c CROSS JOIN unnest(c.task_ids) AS h (task_id) JOIN task_schedule s ON s.task_id = h.task_id
              WHERE c.lease_until > now() AND s.next_refresh_at <= now()) AS task_leases,
            (SELECT count(*)::int FROM deliveries WHERE lease_owner IS NOT NULL OR status = 'sending') AS delivery_leases,
            (SELECT count(*)::int FROM delivery_attempts WHERE error_message LIKE 'attempt interrupted%') AS interrupted`,
  )
  expect(counts).toMatchObject({
    tasks: TASKS,
    distinct_tasks: TASKS,
    deliveries: NOTIFICATIONS,
    kinds: NOTIFICATIONS,
    not_exactly_once: 0,
    not_success: 0,
    task_leases: 0,
    delivery_leases: 0,
  })
  // Every webhook reached its receiver; one arrives twice only where an attempt was cut short.
  const received = [...receiver.requests(path), ...receiver.requests(`${path}-endpoint`)]
  const ids = received.map((r) => String(r.headers['webhook-id']))
  const stored = await db.query<{ webhook_id: string }>('SELECT webhook_id FROM deliveries')
  expect(new Set(ids)).toEqual(new Set(stored.map((r) => r.webhook_id)))
  expect(ids.length - NOTIFICATIONS).toBeLessThanOrEqual(counts!.interrupted!)
  // The endpoint's webhooks are signed with its secret, and announce every stored event once.
  const announced = new Map<string, string>()
  for (const r of receiver.requests(`${path}-endpoint`)) {
    const body = new Webhook(endpointSecret).verify(r.body, r.headers as Record<string, string>) as {
      type: string
      data: { taskId: number; newEvents?: { eventTime: string; eventCode: string }[] }
    }
    for (const e of body.data.newEvents ?? []) {
      const key = `${body.data.taskId} ${e.eventTime} ${e.eventCode}`
      expect(announced.get(key) ?? r.headers['webhook-id'], key).toBe(r.headers['webhook-id'])
      announced.set(key, String(r.headers['webhook-id']))
    }
  }
  const [events] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM tracking_events')
  expect(announced.size).toBe(events!.n)
  return `${TASKS} tasks, ${ids.length} webhook requests for ${NOTIFICATIONS} notifications (${TASKS} to the callback, ${NOTIFICATIONS - TASKS} to an endpoint), ${announced.size} events announced once, ${counts!.interrupted} attempts cut short`
}

/**
 * Subscribes the tasks through `api`, kills the process `victim()` names 0.7 s in and again 1.5 s
 * after its restart, restarts it once more, and waits for everything to settle.
 */
async function killTwiceAndSettle(
  run: RunDatabase,
  api: () => ServiceProcess,
  restart: () => Promise<void>,
  victim: () => ServiceProcess,
  prefix: string,
  callbackUrl: string,
): Promise<{ db: Database; secret: string }> {
  const secret = await subscribeAll(api(), prefix, callbackUrl)
  await sleep(700)
  await victim().stop('SIGKILL')
  await restart()
  await sleep(1500)
  await victim().stop('SIGKILL')
  await restart()
  const db = await run.open()
  await settled(db)
  return { db, secret }
}

describe('killed with SIGKILL mid-work', () => {
  it('the whole service, twice: everything settles exactly once', async () => {
    const run = await createRunDatabase()
    const path = '/crash-all'
    const callbackUrl = receiver.on(path, () => ({ status: 200, delayMs: 150 }))
    receiver.on(`${path}-endpoint`, () => ({ status: 200, delayMs: 150 }))
    const env = serviceEnv(run)
    let service = await startService(env)
    let db: Database | undefined
    try {
      const restart = async () => void (service = await startService(env))
      const settledRun = await killTwiceAndSettle(
        run,
        () => service,
        restart,
        () => service,
        'DLALL',
        callbackUrl,
      )
      db = settledRun.db
      console.log(`whole-service kills (${onPostgres ? 'PostgreSQL' : 'embedded'}): ${await checkInvariants(db, path, settledRun.secret)}`)
    } finally {
      await db?.close()
      await service.stop()
      await run.close()
    }
  })

  it('the worker process, twice, while the API process goes on: everything settles exactly once', async () => {
    const run = await createRunDatabase({ shared: true })
    const path = '/crash-worker'
    const callbackUrl = receiver.on(path, () => ({ status: 200, delayMs: 150 }))
    receiver.on(`${path}-endpoint`, () => ({ status: 200, delayMs: 150 }))
    const api = await startService(serviceEnv(run, { ROLE: 'api' }))
    const workerEnv = serviceEnv(run, { ROLE: 'worker' })
    let worker = await startService(workerEnv)
    let db: Database | undefined
    try {
      const restart = async () => void (worker = await startService(workerEnv))
      const settledRun = await killTwiceAndSettle(
        run,
        () => api,
        restart,
        () => worker,
        'DLWRK',
        callbackUrl,
      )
      db = settledRun.db
      console.log(`worker kills (${onPostgres ? 'PostgreSQL' : 'embedded test server'}): ${await checkInvariants(db, path, settledRun.secret)}`)
    } finally {
      await db?.close()
      await Promise.all([api.stop(), worker.stop()])
      await run.close()
    }
  })
})
