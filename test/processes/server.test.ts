import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { exitOf, freePort, runEntry, startService, type ServiceProcess } from '../support/service-process'
import { tempDataDir as newDataDir } from '../support/run-database'
import { createTestDatabase } from '../support/test-database'
import { waitFor } from '../support/wait-for'
import { isAlive } from '../../src/db/embedded/postmaster'
import { openDatabase } from '../../src/db/open-database'
import { DEFAULTS } from '../support/config-defaults'

const ADMIN_TOKEN = 'process-test-admin-token'
const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

function tempDataDir(): string {
  const dir = newDataDir()
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

/** The embedded server's postmaster pid, while its pid file says one runs. */
function postmasterPid(dataDir: string): number | undefined {
  const file = join(dataDir, 'postgresql', 'postmaster.pid')
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined
}

/** Alive and not a zombie (an exited server waits for init to reap it). */
const alive = (pid: number | undefined) => pid !== undefined && isAlive(pid)

/** The account a process runs as. */
function ownerOf(pid: number): number {
  return statSync(`/proc/${pid}`).uid
}

// The default deployment, whatever database the run's other tests use: each test here starts
// services on a data directory of its own (DATABASE_URL is never passed on to them).
describe('the service on its embedded PostgreSQL server', () => {
  it('creates its database, refuses a second service, serves the CLI, and stops its server with itself', async () => {
    const DATA_DIR = tempDataDir()
    const first = await startService({ DATA_DIR, ADMIN_TOKEN, LOG_LEVEL: 'info' })
    let taskId: number
    let token: string
    let serverPid: number | undefined
    try {
      expect(first.output()).toContain(`creating the embedded database in ${join(DATA_DIR, 'postgresql')}`)
      serverPid = postmasterPid(DATA_DIR)
      expect(alive(serverPid)).toBe(true)
      // PostgreSQL refuses root: run as root (CI), the server runs as an unprivileged account.
      if (process.getuid?.() === 0) expect(ownerOf(serverPid!)).not.toBe(0)

      // A second service on the same directory refuses to start, with a clear message.
      const second = await runEntry('src/main/server.ts', [], { DATA_DIR, PORT: '0' })
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(
        `Refusing to start: The data directory ${DATA_DIR} is in use by another service (tracking-service pid ${first.process.pid})`,
      )

      // The CLI and migrate reach the running service's server.
      const created = await runEntry('src/main/admin.ts', ['create-user', 'acme'], { DATA_DIR })
      expect(created.code).toBe(0)
      token = JSON.parse(created.stdout).token
      expect(created.stderr).toContain(`the embedded database in ${DATA_DIR}`)
      // An operator made by the CLI signs in to the running service's console with the password it printed once.
      const operator = await runEntry('src/main/admin.ts', ['create-operator', 'ops@example.com', 'support'], { DATA_DIR })
      expect(operator.code).toBe(0)
      const { password, role } = JSON.parse(operator.stdout) as { password: string; role: string }
      expect(role).toBe('support')
      const signIn = await fetch(`${first.baseUrl}/console/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'ops@example.com', password }).toString(),
      })
      expect(signIn.status).toBe(303)
      expect(signIn.headers.get('set-cookie')).toContain('console_session=')
      const migrated = await runEntry('src/main/migrate.ts', [], { DATA_DIR })
      expect(migrated.stdout).toContain('schema is up to date')
      expect(postmasterPid(DATA_DIR)).toBe(serverPid)

      const sub = await call(first, 'POST', '/openapi/tracking-subscriptions', token, subscription)
      expect(sub.status).toBe(200)
      taskId = sub.json.data.taskId as number

      // No carrier credentials: the built-in simulator serves the carriers, says /healthz, and
      // the new task is fetched within seconds.
      expect(((await (await fetch(`${first.baseUrl}/healthz`)).json()) as { data: { carriers: unknown } }).data.carriers).toEqual({
        FEDEX: 'simulator',
        UPARCEL: 'simulator',
        UPS: 'simulator',
        USPS: 'simulator',
        DHL: 'simulator',
        LAPOSTE: 'simulator',
        GLS: 'simulator',
        CANADAPOST: 'simulator',
        SEVENTEENTRACK: 'simulator',
      })
      const subscribedAt = Date.now()
      const carrierStatus = await waitFor(
        async () => (await call(first, 'GET', `/openapi/tracking-subscriptions?taskId=${taskId}`, token)).json.data.carrierStatus as string,
        { timeoutMs: 10_000 },
      )
      expect(carrierStatus).toBe('Label created')
      expect(Date.now() - subscribedAt).toBeLessThan(5000)
    } finally {
      expect(await first.stop('SIGTERM')).toBe(0)
    }
    // SIGTERM stops the server with the service: no process left behind.
    expect(alive(serverPid)).toBe(false)
    expect(postmasterPid(DATA_DIR)).toBeUndefined()

    // Restarted after a clean stop: the data is there.
    const restarted = await startService({ DATA_DIR })
    expect((await call(restarted, 'GET', `/openapi/tracking-subscriptions?taskId=${taskId}`, token)).json.data.trackingNumber).toBe(subscription.trackingNumber)
    // Killed outright (as the OOM killer does): the server is left running, and the next start adopts it.
    const orphan = postmasterPid(DATA_DIR)
    expect(await restarted.stop('SIGKILL')).toBe('SIGKILL')
    expect(alive(orphan)).toBe(true)
    const recovered = await startService({ DATA_DIR, LOG_LEVEL: 'info' })
    try {
      expect(recovered.output()).toContain('adopting the embedded server already running')
      expect(postmasterPid(DATA_DIR)).toBe(orphan)
      const found = await call(recovered, 'GET', `/openapi/tracking-subscriptions?trackingNumber=${subscription.trackingNumber}`, token)
      expect(found.status).toBe(200)
      expect(found.json.data.taskId).toBe(taskId)
    } finally {
      expect(await recovered.stop()).toBe(0)
    }
    expect(alive(orphan)).toBe(false)
  }, 180_000)

  it('stops gracefully, with its server, when a supervisor sends SIGTERM to npm start', async () => {
    const DATA_DIR = tempDataDir()
    const port = await freePort()
    const npm = spawn('npm', ['start'], {
      cwd: join(import.meta.dirname, '../..'),
      env: { ...process.env, DATABASE_URL: '', ADMIN_TOKEN: '', DATA_DIR, PORT: String(port), LOG_LEVEL: 'info' },
    })
    let output = ''
    npm.stdout!.on('data', (d) => (output += d))
    npm.stderr!.on('data', (d) => (output += d))
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok, {
      timeoutMs: 60_000,
      what: () => `the service to start: ${output}`,
    })
    // Without ADMIN_TOKEN, a newcomer is told how to make an API user.
    await waitFor(() => output.includes('create an API user with `npm run admin -- create-user <name>`'), {
      timeoutMs: 10_000,
      what: () => `the hint: ${output}`,
    })
    const serverPid = postmasterPid(DATA_DIR)
    const servicePid = Number(
      execFileSync('pgrep', ['-f', '-P', String(npm.pid), 'src/main/launch.mjs'])
        .toString()
        .trim()
        .split('\n')[0],
    )
    npm.kill('SIGTERM')
    await exitOf(npm)
    await waitFor(() => !alive(servicePid) && !alive(serverPid), { timeoutMs: 30_000, what: () => 'the service and its server to stop' })
    expect(postmasterPid(DATA_DIR)).toBeUndefined()
  }, 120_000)

  it('refuses a data directory of the earlier PGlite version, saying what it is and what to do', async () => {
    const DATA_DIR = tempDataDir()
    mkdirSync(join(DATA_DIR, 'pgdata'))
    writeFileSync(join(DATA_DIR, 'pgdata', 'PG_VERSION'), '17\n')
    const result = await runEntry('src/main/server.ts', [], { DATA_DIR, PORT: '0' })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${DATA_DIR} holds a database of the earlier version of this service (PGlite`)
    expect(result.stderr).toContain('point DATA_DIR at a new directory')
  })

  it('names the port in use and says to set PORT, leaving no server behind', async () => {
    const DATA_DIR = tempDataDir()
    const port = await freePort()
    const taken = createServer().listen(port, '127.0.0.1')
    try {
      const result = await runEntry('src/main/server.ts', [], { DATA_DIR, PORT: String(port) })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`Refusing to start: port ${port} on 127.0.0.1 is already in use (another service?); set PORT to a free port`)
      expect(postmasterPid(DATA_DIR)).toBeUndefined()
    } finally {
      taken.close()
    }
  })

  it('refuses to start in production without carrier credentials', async () => {
    const result = await runEntry('src/main/server.ts', [], {
      DATA_DIR: tempDataDir(),
      NODE_ENV: 'production',
      PORT: '0',
      FEDEX_CLIENT_ID: 'id',
      FEDEX_CLIENT_SECRET: 'secret',
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('NODE_ENV=production needs carrier credentials: UPARCEL_API_KEY and UPARCEL_SECRET_KEY')
  })

  it('runs the CLI on a directory no service holds, starting the server for its work and stopping it after', async () => {
    const DATA_DIR = tempDataDir()
    const first = await runEntry('src/main/admin.ts', ['create-user', 'solo'], { DATA_DIR })
    expect(first.stderr).toContain('creating the embedded database in')
    const created = JSON.parse(first.stdout)
    expect(created).toEqual({ userId: 1, name: 'solo', token: expect.stringMatching(/^trk_/), webhookSecret: expect.stringMatching(/^whsec_/) })
    expect(postmasterPid(DATA_DIR)).toBeUndefined()
    const newToken = JSON.parse((await runEntry('src/main/admin.ts', ['issue-token', '1'], { DATA_DIR })).stdout)
    expect(newToken).toEqual({ tokenId: 2, token: expect.stringMatching(/^trk_/) })
    expect(JSON.parse((await runEntry('src/main/admin.ts', ['revoke-token', '1', '2'], { DATA_DIR })).stdout)).toEqual({ tokenId: 2, revoked: true })
    expect(JSON.parse((await runEntry('src/main/admin.ts', ['set', 'batchMaxItems', '50'], { DATA_DIR })).stdout)).toEqual({
      batchMaxItems: 50,
      retentionDays: 0,
      predictionSharing: 'all',
      consoleSessionHours: 8,
      auditRetentionDays: 365,
      recipientRetentionDays: 30,
      carrierAutoCorrect: 'off',
      carrierAutoCorrectHours: 48,
    })
    expect(JSON.parse((await runEntry('src/main/admin.ts', ['set', 'retentionDays', '90'], { DATA_DIR })).stdout)).toEqual({
      batchMaxItems: 50,
      retentionDays: 90,
      predictionSharing: 'all',
      consoleSessionHours: 8,
      auditRetentionDays: 365,
      recipientRetentionDays: 30,
      carrierAutoCorrect: 'off',
      carrierAutoCorrectHours: 48,
    })
    expect(JSON.parse((await runEntry('src/main/admin.ts', ['set', 'predictionSharing', 'own'], { DATA_DIR })).stdout)).toMatchObject({
      predictionSharing: 'own',
    })
    expect(JSON.parse((await runEntry('src/main/admin.ts', ['settings'], { DATA_DIR })).stdout)).toEqual({
      batchMaxItems: 50,
      retentionDays: 90,
      predictionSharing: 'own',
      consoleSessionHours: 8,
      auditRetentionDays: 365,
      recipientRetentionDays: 30,
      carrierAutoCorrect: 'off',
      carrierAutoCorrectHours: 48,
    })
    const bad = await runEntry('src/main/admin.ts', ['set', 'batchMaxItems', '5000'], { DATA_DIR })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('batchMaxItems must be an integer from 1 to 1000')
    // An operator deletes a user's task by id; a task of another user, or none, is refused.
    await runEntry('src/main/admin.ts', ['create-user', 'other'], { DATA_DIR })
    const db = await openDatabase({ databaseUrl: undefined, dataDir: DATA_DIR, poolSize: 1, publicBaseUrl: DEFAULTS.publicBaseUrl, role: 'tool' })
    try {
      const [task] = await db.query<{ id: number }>(
        `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url) VALUES (1, 'FEDEX', 'CLI1', 'https://a.example/') RETURNING id`,
      )
      expect((await runEntry('src/main/admin.ts', ['delete-task', '2', String(task!.id)], { DATA_DIR })).stderr).toContain('subscription not found')
      expect(JSON.parse((await runEntry('src/main/admin.ts', ['delete-task', '1', String(task!.id)], { DATA_DIR })).stdout)).toEqual({
        taskId: task!.id,
        deleted: true,
      })
      expect(await db.query('SELECT 1 FROM tracking_tasks WHERE id = $1', [task!.id])).toEqual([])
    } finally {
      await db.close()
    }
    const unknown = await runEntry('src/main/admin.ts', ['frobnicate'], { DATA_DIR })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('unknown command')
    expect(unknown.stderr).not.toContain('using the embedded database')
    expect(postmasterPid(DATA_DIR)).toBeUndefined()
  }, 120_000)
})

// Several processes on one database: PostgreSQL's deployment (one embedded directory belongs to
// one service, which the test above proves), here on the run's test server.
describe('several service processes on one database', () => {
  it('share users, settings and tasks: 30 concurrent subscribes over two processes make one task', async () => {
    const database = await createTestDatabase()
    const env = { DATABASE_URL: database.connectionString, ADMIN_TOKEN }
    const [a, b] = await Promise.all([startService(env), startService(env)])
    try {
      const user = await call(a, 'POST', '/admin/api-users', ADMIN_TOKEN, { name: 'shared' })
      const token = user.json.data.token as string
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) => call(i % 2 ? a : b, 'POST', '/openapi/tracking-subscriptions', token, subscription)),
      )
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
