import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runningServerUrl } from '../../src/db/embedded/embedded-server'
import { createRunDatabase, type RunDatabase } from '../support/run-database'
import { startService, type ServiceProcess } from '../support/service-process'
import { WebhookReceiver } from '../support/webhook-receiver'
import { waitFor } from '../support/wait-for'

/**
 * SIGTERM: stop accepting, finish the webhook attempts in flight (releasing their leases by
 * completing them), close the database and exit 0; past SHUTDOWN_TIMEOUT_MS exit anyway, and the
 * work left behind comes back by lease expiry.
 */
const ADMIN_TOKEN = 'shutdown-admin-token'
let receiver: WebhookReceiver
beforeAll(async () => {
  receiver = new WebhookReceiver()
  await receiver.start()
})
afterAll(() => receiver.stop())

async function subscribe(service: ServiceProcess, count: number, callbackUrl: string, prefix: string): Promise<string> {
  const { data } = (await (
    await fetch(`${service.baseUrl}/admin/api-users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{"name":"bye"}',
    })
  ).json()) as { data: { token: string } }
  const items = Array.from({ length: count }, (_, i) => ({ carrierCode: 'FEDEX', trackingNumber: `${prefix}${i}`, callbackUrl }))
  await fetch(`${service.baseUrl}/openapi/tracking-subscriptions/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${data.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ items }),
  })
  return data.token
}

const until = (probe: () => boolean, timeoutMs = 20_000) => waitFor(probe, { timeoutMs, intervalMs: 25 })

const env = (run: RunDatabase, extra: Record<string, string> = {}) => ({
  ...run.env,
  ADMIN_TOKEN,
  SIMULATOR_STEP_SECONDS: '0',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_RETRY_SCHEDULE: '1,1,1',
  ...extra,
})

describe('graceful shutdown', () => {
  it('finishes the attempts in flight, releases every lease, closes the database and exits 0', async () => {
    const run = await createRunDatabase()
    const url = receiver.on('/slow-goodbye', () => ({ status: 200, delayMs: 1500 }))
    const service = await startService(env(run))
    try {
      await subscribe(service, 3, url, 'DLBYE')
      await until(() => receiver.requests('/slow-goodbye').length === 3)
      const started = Date.now()
      const exit = await service.stop('SIGTERM')
      const tookMs = Date.now() - started
      expect(exit).toBe(0)
      // It waited for the receiver (1.5 s) rather than cutting the attempts off.
      expect(tookMs).toBeGreaterThan(900)
      await expect(fetch(`${service.baseUrl}/healthz`)).rejects.toThrow()
      // The embedded server stopped with the service: no postmaster is left on its data.
      if (run.env.DATA_DIR) expect(runningServerUrl(run.env.DATA_DIR)).toBeUndefined()
      const db = await run.open()
      try {
        const [row] = await db.query<Record<string, number>>(
          `SELECT (SELECT count(*)::int FROM deliveries WHERE status = 'success') AS success,
                  (SELECT count(*)::int FROM deliveries WHERE status = 'sending' OR lease_owner IS NOT NULL) AS leased,
                  (SELECT count(*)::int FROM refresh_claims) AS task_leases`,
        )
        expect(row).toEqual({ success: 3, leased: 0, task_leases: 0 })
      } finally {
        await db.close()
      }
      console.log(`SIGTERM with 3 attempts in flight: exited 0 after ${tookMs} ms, nothing left leased`)
    } finally {
      await run.close()
    }
  })

  it('exits at the deadline when an attempt outlasts it; the attempt comes back by lease expiry', async () => {
    const run = await createRunDatabase()
    const url = receiver.on('/stuck-goodbye', (n) => (n === 1 ? { status: 200, delayMs: 30_000 } : { status: 200 }))
    const first = await startService(env(run, { SHUTDOWN_TIMEOUT_MS: '1000', WEBHOOK_TIMEOUT_MS: '2000' }))
    await subscribe(first, 1, url, 'DLSTUCK')
    await until(() => receiver.requests('/stuck-goodbye').length === 1)
    const started = Date.now()
    expect(await first.stop('SIGTERM')).toBe(1)
    expect(Date.now() - started).toBeLessThan(3000)
    const second = await startService(env(run, { WEBHOOK_TIMEOUT_MS: '2000' }))
    try {
      await until(() => receiver.requests('/stuck-goodbye').length === 2, 30_000)
      expect(receiver.requests('/stuck-goodbye')[1]!.headers['webhook-id']).toBe(receiver.requests('/stuck-goodbye')[0]!.headers['webhook-id'])
    } finally {
      await second.stop()
      await run.close()
    }
  })
})
