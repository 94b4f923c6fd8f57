import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres'
import { startService, type ServiceProcess } from '../support/service-process'

/**
 * PostgreSQL restarted under load: meanwhile the API answers 503 `unavailable` (never 500), it
 * recovers by itself, and every subscribe it acknowledged is there afterwards.
 */
const ADMIN_TOKEN = 'pg-restart-admin-token'
let postgres: PrivatePostgres
let service: ServiceProcess

beforeAll(async () => {
  postgres = await startPrivatePostgres()
  service = await startService({ DATABASE_URL: postgres.url, ADMIN_TOKEN, RATE_LIMIT_PER_TOKEN: '0', RATE_LIMIT_PER_ADDRESS: '0', ROLE: 'api' })
})
afterAll(async () => {
  await service?.stop()
  postgres?.stop()
})

describe('PostgreSQL restarted under load', () => {
  it('answers 503 meanwhile, recovers by itself, and loses no acknowledged write', async () => {
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
    await new Promise((r) => setTimeout(r, 1500))
    const restartedAt = Date.now()
    postgres.restart()
    const restartMs = Date.now() - restartedAt
    // Recovers by itself: /readyz and subscribes succeed again without a restart of the service.
    const recoveredAt = await (async () => {
      for (;;) {
        const ready = await fetch(`${service.baseUrl}/readyz`)
        if (ready.status === 200) return Date.now()
        expect(ready.status).toBe(503)
        await new Promise((r) => setTimeout(r, 50))
      }
    })()
    await new Promise((r) => setTimeout(r, 1500))
    running = false
    await Promise.all(load)

    console.log(`PostgreSQL restart: pg_ctl restart took ${restartMs} ms; ready again ${recoveredAt - restartedAt} ms after it began; answers ${JSON.stringify(Object.fromEntries(statuses))}`)
    expect(bodies).toEqual([])
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 503)).toEqual([])
    expect(statuses.get(200)).toBeGreaterThan(100)

    // Every acknowledged subscribe is stored, with the task id that was answered.
    const client = new pg.Client({ connectionString: postgres.url })
    await client.connect()
    const { rows } = await client.query<{ tracking_number: string; id: string }>('SELECT tracking_number, id FROM tracking_tasks WHERE user_id = $1', [created.data.userId])
    await client.end()
    const stored = new Map(rows.map((r) => [r.tracking_number, Number(r.id)]))
    const lost = [...acknowledged].filter(([number, id]) => stored.get(number) !== id)
    expect(lost).toEqual([])
    expect(acknowledged.size).toBeGreaterThan(0)
  })
})
