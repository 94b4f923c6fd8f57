import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { runningServerUrl } from '../../src/db/embedded/embedded-server'
import { startPrivatePostgres } from '../support/private-postgres'
import { tempDataDir } from '../support/run-database'
import { startService, type ServiceProcess } from '../support/service-process'
import { waitFor } from '../support/wait-for'

/**
 * The database server goes away under load: PostgreSQL restarted by its operator, or the embedded
 * server killed outright (SIGKILL of its postmaster, as an OOM killer would). Meanwhile the API
 * answers 503 `unavailable` (never 500), it recovers by itself (the embedded server is started
 * again by the service), and every subscribe it acknowledged is there afterwards.
 */
const ADMIN_TOKEN = 'pg-restart-admin-token'
const cleanups: (() => unknown)[] = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

async function underLoad(service: ServiceProcess, databaseUrl: () => string, disrupt: () => void, label: string): Promise<void> {
  const created = (await (await fetch(`${service.baseUrl}/admin/api-users`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: '{"name":"load"}' })).json()) as { data: { token: string; userId: number } }
  const acknowledged = new Map<string, number>()
  const statuses = new Map<number, number>()
  const bodies: string[] = []
  let seq = 0
  let running = true
  const worker = async () => {
    while (running) {
      const trackingNumber = `PGR${++seq}`
      try {
        const res = await fetch(`${service.baseUrl}/openapi/tracking-subscriptions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${created.data.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ carrierCode: 'FEDEX', trackingNumber, callbackUrl: 'https://a.example/' }),
        })
        const body = await res.text()
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        if (res.status === 200) acknowledged.set(trackingNumber, (JSON.parse(body) as { data: { taskId: number } }).data.taskId)
        else if (res.status !== 503) bodies.push(`${res.status} ${body}`)
        else expect(JSON.parse(body)).toMatchObject({ code: 503, data: { error: 'unavailable' } })
      } catch (error) {
        bodies.push(`no answer: ${(error as Error).message}`)
      }
    }
  }
  const load = Array.from({ length: 10 }, worker)
  // Some load before and after the disruption: enough answers to prove each side.
  await waitFor(() => (statuses.get(200) ?? 0) > 200, { timeoutMs: 30_000, what: 'answers before the disruption' })
  const disruptedAt = Date.now()
  disrupt()
  const disruptMs = Date.now() - disruptedAt
  // Recovers by itself: /readyz and subscribes succeed again without a restart of the service.
  await waitFor(async () => (await fetch(`${service.baseUrl}/readyz`)).status === 200, { timeoutMs: 60_000, what: 'readiness after the disruption' })
  const recoveredAt = Date.now()
  const before = statuses.get(200) ?? 0
  await waitFor(() => (statuses.get(200) ?? 0) > before + 200, { timeoutMs: 30_000, what: 'answers after the disruption' })
  running = false
  await Promise.all(load)

  console.log(`${label}: the disruption took ${disruptMs} ms; ready again ${recoveredAt - disruptedAt} ms after it began; answers ${JSON.stringify(Object.fromEntries(statuses))}`)
  expect(bodies).toEqual([])
  expect([...statuses.keys()].filter((s) => s !== 200 && s !== 503)).toEqual([])

  // Every acknowledged subscribe is stored, with the task id that was answered.
  const client = new pg.Client({ connectionString: databaseUrl() })
  await client.connect()
  const { rows } = await client.query<{ tracking_number: string; id: string }>('SELECT tracking_number, id FROM tracking_tasks WHERE user_id = $1', [created.data.userId])
  await client.end()
  const stored = new Map(rows.map((r) => [r.tracking_number, Number(r.id)]))
  const lost = [...acknowledged].filter(([number, id]) => stored.get(number) !== id)
  expect(lost).toEqual([])
  expect(acknowledged.size).toBeGreaterThan(400)
}

const serviceEnv = { ADMIN_TOKEN, RATE_LIMIT_PER_TOKEN: '0', RATE_LIMIT_PER_ADDRESS: '0', ROLE: 'api' }

describe('the database server goes away under load', () => {
  it('PostgreSQL restarted: 503 meanwhile, recovers by itself, no acknowledged write lost', async () => {
    const postgres = await startPrivatePostgres()
    cleanups.push(() => postgres.stop())
    const service = await startService({ ...serviceEnv, DATABASE_URL: postgres.url })
    cleanups.push(() => service.stop())
    await underLoad(service, () => postgres.url, () => postgres.restart(), 'PostgreSQL restart')
  })

  it('the embedded server killed with SIGKILL: started again by the service, no acknowledged write lost', async () => {
    const dataDir = tempDataDir()
    const service = await startService({ ...serviceEnv, DATA_DIR: dataDir })
    cleanups.push(() => service.stop())
    const postmaster = () => Number(readFileSync(join(dataDir, 'postgresql', 'postmaster.pid'), 'utf8').split('\n')[0])
    await underLoad(service, () => runningServerUrl(dataDir)!, () => process.kill(postmaster(), 'SIGKILL'), 'embedded server killed')
  })
})
