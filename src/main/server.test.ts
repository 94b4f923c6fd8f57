import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runEntry, startService, type ServiceProcess } from '../../test/support/service-process'
import { createTestDatabase, onPostgres } from '../../test/support/test-database'

const ADMIN_TOKEN = 'process-test-admin-token'
const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tracking-data-'))
  dirs.push(dir)
  return dir
}

async function call(service: ServiceProcess, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  return { status: res.status, json: (await res.json()) as { code: number; data: Record<string, unknown>; msg: string } }
}

const subscription = { carrierCode: 'FEDEX', trackingNumber: '794843185271', callbackUrl: 'https://shop.example/hook' }

describe('the service process on the embedded database', () => {
  it('guards its data directory, serves the CLI while running, and keeps its data across restarts and crashes', async () => {
    const DATA_DIR = tempDataDir()
    const first = await startService({ DATA_DIR, ADMIN_TOKEN })
    let taskId: number
    let token: string
    try {
      // A second process on the same directory refuses to start, with a clear message.
      const second = await runEntry('src/main/server.ts', [], { DATA_DIR, PORT: '0' })
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(`Refusing to start: The data directory ${DATA_DIR} is in use by another process (pid ${first.process.pid}`)

      // The CLI and migrate reach the running service's database instead of opening the directory again.
      const created = await runEntry('src/main/admin.ts', ['create-user', 'acme'], { DATA_DIR })
      expect(created.code).toBe(0)
      token = JSON.parse(created.stdout).token
      const migrated = await runEntry('src/main/migrate.ts', [], { DATA_DIR })
      expect(migrated.stdout).toContain('schema is up to date')

      const sub = await call(first, 'POST', '/openapi/tracking-subscriptions', token, subscription)
      expect(sub.status).toBe(200)
      taskId = sub.json.data.taskId as number

      // No carrier credentials: the built-in simulator serves the carriers, says /healthz, and
      // the new task is fetched within seconds.
      expect(((await (await fetch(`${first.baseUrl}/healthz`)).json()) as { data: { carriers: unknown } }).data.carriers).toEqual({ FEDEX: 'simulator', UPARCEL: 'simulator' })
      const subscribedAt = Date.now()
      let carrierStatus = ''
      while (!carrierStatus && Date.now() - subscribedAt < 10_000) {
        await new Promise((r) => setTimeout(r, 100))
        carrierStatus = (await call(first, 'GET', `/openapi/tracking-subscriptions?taskId=${taskId}`, token)).json.data.carrierStatus as string
      }
      expect(carrierStatus).toBe('Label created')
      expect(Date.now() - subscribedAt).toBeLessThan(5000)
    } finally {
      expect(await first.stop('SIGTERM')).toBe(0)
    }
    expect(existsSync(join(DATA_DIR, 'service.lock'))).toBe(false)

    // Restarted after a clean stop: the data is there.
    const restarted = await startService({ DATA_DIR })
    expect((await call(restarted, 'GET', `/openapi/tracking-subscriptions?taskId=${taskId}`, token)).json.data.trackingNumber).toBe(subscription.trackingNumber)
    // Killed outright: the lock file stays behind, names a dead process, and is taken over.
    expect(await restarted.stop('SIGKILL')).toBe('SIGKILL')
    expect(JSON.parse(readFileSync(join(DATA_DIR, 'service.lock'), 'utf8')).pid).toBe(restarted.process.pid)
    const recovered = await startService({ DATA_DIR })
    try {
      const found = await call(recovered, 'GET', `/openapi/tracking-subscriptions?trackingNumber=${subscription.trackingNumber}`, token)
      expect(found.status).toBe(200)
      expect(found.json.data.taskId).toBe(taskId)
    } finally {
      await recovered.stop()
    }
  }, 180_000)

  it('refuses to start in production without carrier credentials', async () => {
    const result = await runEntry('src/main/server.ts', [], { DATA_DIR: tempDataDir(), NODE_ENV: 'production', PORT: '0', FEDEX_CLIENT_ID: 'id', FEDEX_CLIENT_SECRET: 'secret' })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('NODE_ENV=production needs carrier credentials: UPARCEL_API_KEY and UPARCEL_SECRET_KEY')
  })

  it('runs the CLI on a directory no service holds', async () => {
    const DATA_DIR = tempDataDir()
    const created = JSON.parse((await runEntry('src/main/admin.ts', ['create-user', 'solo'], { DATA_DIR })).stdout)
    expect(created).toEqual({ userId: 1, name: 'solo', token: expect.stringMatching(/^trk_/), webhookSecret: expect.stringMatching(/^whsec_/) })
    const issued = JSON.parse((await runEntry('src/main/admin.ts', ['issue-token', '1'], { DATA_DIR })).stdout)
    expect(issued).toEqual({ tokenId: 2, token: expect.stringMatching(/^trk_/) })
    expect(JSON.parse((await runEntry('src/main/admin.ts', ['revoke-token', '1', '2'], { DATA_DIR })).stdout)).toEqual({ tokenId: 2, revoked: true })
    expect(JSON.parse((await runEntry('src/main/admin.ts', ['set', 'batchMaxItems', '50'], { DATA_DIR })).stdout)).toEqual({ batchMaxItems: 50 })
    expect(JSON.parse((await runEntry('src/main/admin.ts', ['settings'], { DATA_DIR })).stdout)).toEqual({ batchMaxItems: 50 })
    const bad = await runEntry('src/main/admin.ts', ['set', 'batchMaxItems', '5000'], { DATA_DIR })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('batchMaxItems must be an integer from 1 to 1000')
    const unknown = await runEntry('src/main/admin.ts', ['frobnicate'], { DATA_DIR })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('unknown command')
  }, 120_000)
})

// Defined only for the PostgreSQL run (DATABASE_URL): several processes cannot share an
// embedded directory by design, which the test above proves.
if (onPostgres) describe('several service processes on one PostgreSQL', () => {
  it('share users, settings and tasks: 30 concurrent subscribes over two processes make one task', async () => {
    const database = await createTestDatabase()
    const env = { DATABASE_URL: database.connectionString, ADMIN_TOKEN }
    const [a, b] = await Promise.all([startService(env), startService(env)])
    try {
      const user = await call(a, 'POST', '/admin/api-users', ADMIN_TOKEN, { name: 'shared' })
      const token = user.json.data.token as string
      const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => call(i % 2 ? a : b, 'POST', '/openapi/tracking-subscriptions', token, subscription)))
      expect(responses.every((r) => r.status === 200)).toBe(true)
      expect(new Set(responses.map((r) => r.json.data.taskId)).size).toBe(1)
      expect(responses.filter((r) => r.json.data.result === 'created')).toHaveLength(1)

      await call(b, 'PATCH', '/admin/settings', ADMIN_TOKEN, { batchMaxItems: 1 })
      const items = [subscription, { ...subscription, trackingNumber: 'OTHER1' }]
      expect((await call(a, 'POST', '/openapi/tracking-subscriptions/batch', token, { items })).status).toBe(400)
    } finally {
      await Promise.all([a.stop(), b.stop()])
      await database.close()
    }
  }, 120_000)
})
