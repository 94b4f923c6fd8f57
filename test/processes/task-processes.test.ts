import { afterAll, describe, expect, it } from 'vitest'
import { createRunDatabase, type RunDatabase } from '../support/run-database'
import { startService, type ServiceProcess } from '../support/service-process'
import { waitFor } from '../support/wait-for'

// Refresh now, on every process layout: one process, and an API process beside a worker that only
// a NOTIFY wakes in time (it polls every 10 s).

const ADMIN_TOKEN = 'task-process-admin-token'
const runs: RunDatabase[] = []
const services: ServiceProcess[] = []
afterAll(async () => {
  await Promise.all(services.map((s) => s.stop()))
  for (const run of runs) await run.close()
})

async function call(service: ServiceProcess, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  return { status: res.status, json: (await res.json()) as { data: Record<string, unknown> } }
}

async function stopThenRefresh(api: ServiceProcess): Promise<number> {
  const { token } = (await call(api, 'POST', '/admin/api-users', ADMIN_TOKEN, { name: 'refresher' })).json.data as { token: string }
  const { taskId } = (
    await call(api, 'POST', '/openapi/tracking-subscriptions', token, {
      carrierCode: 'FEDEX',
      trackingNumber: `RN${Date.now()}`,
      callbackUrl: 'https://shop.example/hook',
    })
  ).json.data as { taskId: number }
  const checked = () => call(api, 'GET', `/openapi/tracking-subscriptions/${taskId}`, token).then((r) => r.json.data.lastCheckedAt as string | null)
  const first = await waitFor(checked, { timeoutMs: 15_000, what: 'the first fetch' })
  const stopped = await call(api, 'POST', `/openapi/tracking-subscriptions/${taskId}/stop`, token)
  expect(stopped.json.data).toMatchObject({ active: false, nextCheckAt: null })
  const asked = Date.now()
  expect((await call(api, 'POST', `/openapi/tracking-subscriptions/${taskId}/refresh`, token)).status).toBe(202)
  await waitFor(async () => (await checked()) !== first, { timeoutMs: 8_000, what: 'the fetch asked for' })
  const task = (await call(api, 'GET', `/openapi/tracking-subscriptions/${taskId}`, token)).json.data
  expect(task).toMatchObject({ active: true, stoppedAt: null })
  return Date.now() - asked
}

describe('refresh now', () => {
  it('fetches a stopped task within seconds in one process', async () => {
    const run = await createRunDatabase()
    runs.push(run)
    const service = await startService({ ...run.env, ADMIN_TOKEN, SIMULATOR_STEP_SECONDS: '3600' })
    services.push(service)
    const ms = await stopThenRefresh(service)
    console.log(`refresh now → fetched: ${ms} ms (one process)`)
  })

  it('fetches a stopped task within seconds with an API process beside a worker process', async () => {
    const run = await createRunDatabase({ shared: true })
    runs.push(run)
    const api = await startService({ ...run.env, ADMIN_TOKEN, ROLE: 'api' })
    // A poll that comes too late to pass for a wake-up: the refresh now reaches the worker by NOTIFY.
    const worker = await startService({ ...run.env, ROLE: 'worker', SIMULATOR_STEP_SECONDS: '3600', REFRESH_POLL_MS: '60000' })
    services.push(api, worker)
    const ms = await stopThenRefresh(api)
    expect(ms).toBeLessThan(30_000)
    console.log(`refresh now → fetched: ${ms} ms (ROLE=api beside ROLE=worker)`)
  })
})
