import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type ServiceProcess } from '../support/service-process'
import { createRunDatabase, type RunDatabase } from '../support/run-database'
import { createTestDatabase, onPostgres } from '../support/test-database'
import { WebhookReceiver } from '../support/webhook-receiver'
import { DELIVERIES_DUE, Notifier } from '../../src/db/notifier'
import { waitFor as waitUntil } from '../support/wait-for'

const ADMIN_TOKEN = 'webhook-process-admin-token'
let receiver: WebhookReceiver
beforeAll(async () => {
  receiver = new WebhookReceiver()
  await receiver.start()
})
afterAll(() => receiver.stop())

/** The shared waitFor, with the thing waited for named first. */
const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000) => waitUntil(probe, { what, timeoutMs, intervalMs: 100 })

async function api(service: ServiceProcess, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  return (await res.json()) as { code: number; data: Record<string, unknown> & { latestWebhook?: Record<string, unknown> | null } }
}

describe('the whole service process', () => {
  let run: RunDatabase
  beforeAll(async () => {
    // The database of this run: a fresh PostgreSQL database, or an embedded directory.
    run = await createRunDatabase()
  })
  afterAll(() => run.close())

  it('wakes its webhook loop for a status change at once, not at its poll', async () => {
    const service = await startService({
      ...run.env,
      ADMIN_TOKEN,
      SIMULATOR_STEP_SECONDS: '0',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // A poll that comes too late to pass for a wake-up: what this test tells apart.
      WEBHOOK_POLL_MS: '60000',
    })
    try {
      const fastUrl = receiver.on('/fast', () => ({ status: 204 }))
      const { token } = (await api(service, 'POST', '/admin/api-users', ADMIN_TOKEN, { name: 'latency' })).data as { token: string }
      const fast = (
        await api(service, 'POST', '/openapi/tracking-subscriptions', token, { carrierCode: 'FEDEX', trackingNumber: 'DLFAST1', callbackUrl: fastUrl })
      ).data
      const delivered = await waitFor('the first webhook', async () => {
        const history = (await api(service, 'GET', `/openapi/tracking-subscriptions/${fast.taskId}/webhooks`, token)).data.deliveries as {
          createdAt: string
          attempts: { startedAt: string }[]
        }[]
        return history[0]?.attempts[0] ? history[0] : undefined
      })
      const latencyMs = Date.parse(delivered.attempts[0]!.startedAt) - Date.parse(delivered.createdAt)
      expect(latencyMs).toBeLessThan(30_000)
      console.log(`status change → first attempt: ${latencyMs} ms (${onPostgres ? 'PostgreSQL' : 'embedded'})`)
    } finally {
      await service.stop()
    }
  })

  it('attempts a delivery again when killed mid-attempt, and ends success', async () => {
    const env = {
      ...run.env,
      ADMIN_TOKEN,
      SIMULATOR_STEP_SECONDS: '0',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // A lease of timeout + 5 s = 8 s; a retry 1 s after the interrupted attempt.
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1',
    }
    // The first request is never answered in time: the process is killed while it waits.
    const callbackUrl = receiver.on('/crash', (n) => (n === 1 ? { status: 200, delayMs: 60_000 } : { status: 200, body: 'got it' }))
    let service = await startService(env)
    const { token } = (await api(service, 'POST', '/admin/api-users', ADMIN_TOKEN, { name: 'crash' })).data as { token: string }

    const { taskId } = (
      await api(service, 'POST', '/openapi/tracking-subscriptions', token, { carrierCode: 'UPARCEL', trackingNumber: 'DLCRASH1', callbackUrl })
    ).data
    await waitFor('the first attempt to arrive', async () => (receiver.requests('/crash').length > 0 ? true : undefined))
    expect((await api(service, 'GET', `/openapi/tracking-subscriptions?taskId=${taskId}`, token)).data.latestWebhook).toMatchObject({ status: 'sending' })
    expect(await service.stop('SIGKILL')).toBe('SIGKILL')

    service = await startService(env)
    try {
      const latest = await waitFor('the delivery to succeed', async () => {
        const webhook = (await api(service, 'GET', `/openapi/tracking-subscriptions?taskId=${taskId}`, token)).data.latestWebhook
        return webhook?.status === 'success' ? webhook : undefined
      })
      expect(latest).toMatchObject({ status: 'success', attemptCount: 2, responseStatusCode: 200, errorMessage: '', nextRetryAt: null })
      const requests = receiver.requests('/crash')
      expect(requests).toHaveLength(2)
      expect(requests[1]!.headers['webhook-id']).toBe(requests[0]!.headers['webhook-id'])
      const history = (await api(service, 'GET', `/openapi/tracking-subscriptions/${taskId}/webhooks`, token)).data.deliveries as {
        attempts: { errorMessage: string; responseBody: string }[]
      }[]
      expect(history[0]!.attempts.map((a) => a.errorMessage)).toEqual(['attempt interrupted: the worker lost its lease', ''])
      expect(history[0]!.attempts[1]!.responseBody).toBe('got it')
    } finally {
      await service.stop()
    }
  }, 90_000)
})

// Several worker processes on one database: the run's test server (on the embedded run, itself an
// embedded PostgreSQL server).
describe('two webhook worker processes on PostgreSQL', () => {
  it('deliver 1,000 notifications: none lost, none sent twice, woken at once by NOTIFY', async () => {
    const database = await createTestDatabase()
    const env = {
      DATABASE_URL: database.connectionString,
      ROLE: 'worker',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // Polling alone would take up to 10 s: a quick first attempt proves LISTEN/NOTIFY.
      WEBHOOK_POLL_MS: '10000',
      REFRESH_POLL_MS: '10000',
    }
    const workers = await Promise.all([startService(env), startService(env)])
    try {
      const url = receiver.on('/bulk', () => ({ status: 200 }))
      const { db } = database
      const [user] = await db.query<{ id: number }>(
        `INSERT INTO api_users (name, webhook_secret) VALUES ('bulk', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') RETURNING id`,
      )
      const tasks = await db.query<{ id: number }>(
        `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, inactive_since)
           SELECT $1, 'FEDEX', 'BULK' || g, $2, now() FROM generate_series(1, 10) g RETURNING id`,
        [user!.id, url],
      )
      const started = Date.now()
      await db.query(
        `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, next_attempt_at)
           SELECT t.id, t.user_id, 'msg_bulk' || lpad(g::text, 8, '0'), '{"type": "tracking.status_changed"}', now()
             FROM generate_series(1, 1000) g JOIN tracking_tasks t ON t.id = ($1::bigint[])[1 + g % 10]`,
        [tasks.map((t) => t.id)],
      )
      // What a service process does after committing due deliveries (refresh, redeliver).
      new Notifier(db, DELIVERIES_DUE).notify()
      await waitFor(
        '1,000 deliveries',
        async () => {
          const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE status = 'success'`)
          return row!.n === 1000 ? true : undefined
        },
        60_000,
      )
      const elapsed = Date.now() - started
      const ids = receiver.requests('/bulk').map((r) => String(r.headers['webhook-id']))
      expect(new Set(ids).size).toBe(1000)
      expect(ids).toHaveLength(1000)
      const firstAt = Math.min(...receiver.requests('/bulk').map((r) => r.at))
      expect(firstAt - started).toBeLessThan(1000)
      const perWorker = await Promise.all(
        workers.map(async (w) =>
          Number(/^webhook_attempts_total\{outcome="success"\} (\d+)/m.exec(await (await fetch(`${w.baseUrl}/metrics`)).text())?.[1] ?? 0),
        ),
      )
      expect(perWorker[0]! + perWorker[1]!).toBe(1000)
      expect(perWorker.every((n) => n > 0)).toBe(true)
      const [stuck] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE status <> 'success' OR lease_owner IS NOT NULL`)
      expect(stuck!.n).toBe(0)
      console.log(`1,000 webhooks by two workers in ${elapsed} ms (${perWorker.join(' + ')}); first attempt ${firstAt - started} ms after the insert`)
    } finally {
      await Promise.all(workers.map((w) => w.stop()))
      await database.close()
    }
  }, 120_000)
})
