import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCarrierSimulator } from '../../src/carriers/registry'
import { runningServerUrl } from '../../src/db/embedded/embedded-server'
import { FaultLoad, type Answer } from '../support/fault-load'
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres'
import { tempDataDir } from '../support/run-database'
import { signalServer } from '../support/server-processes'
import { startService, type ServiceProcess } from '../support/service-process'
import { SilentProxy } from '../support/silent-proxy'
import { simulatorEnv } from '../support/simulator-env'
import { mountSmallDisk } from '../support/small-disk'
import { createTestDatabase, onPostgres } from '../support/test-database'
import { waitFor } from '../support/wait-for'
import { WebhookReceiver } from '../support/webhook-receiver'

/**
 * The database fails under a service at work, as an operator meets it: its server killed (a
 * crash, an OOM kill, a failover) again and again, its disk full, its network silent. Through
 * every fault the service's own process lives on, answers only 200 or 503 `unavailable` (with
 * Retry-After), never holds a request past its deadline, recovers by itself, and keeps every write
 * it acknowledged; the refreshes and webhook attempts a fault cut short are taken up again through
 * their leases, so every task ends delivered and told once.
 *
 * On the embedded run the service's own server is the one that fails (the service starts it
 * again); on the PostgreSQL run a private cluster does (the test plays the operator who starts it).
 */

const ADMIN_TOKEN = 'database-faults-admin-token'
// The deadline of every statement and every wait for a connection, in this suite.
const DEADLINE_MS = 2_000
// What a request may take beyond the deadline on a loaded two-core machine (timers, scheduling).
const SLACK_MS = 1_000
let sim: ReturnType<typeof createCarrierSimulator>
let receiver: WebhookReceiver
const cleanups: (() => unknown)[] = []

beforeAll(async () => {
  // Every story ends at its first fetch: each subscribe makes one refresh apply and one webhook.
  sim = createCarrierSimulator({ stepMs: 0, trackDelayMs: 20 })
  await sim.start()
  receiver = new WebhookReceiver()
  await receiver.start()
})
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  await receiver.stop()
  await sim.stop()
})

function serviceEnv(database: Record<string, string>): Record<string, string> {
  return {
    ...database,
    ADMIN_TOKEN,
    RATE_LIMIT_PER_TOKEN: '0',
    RATE_LIMIT_PER_ADDRESS: '0',
    ...simulatorEnv(sim),
    DATABASE_STATEMENT_TIMEOUT_MS: String(DEADLINE_MS),
    DATABASE_CONNECT_TIMEOUT_MS: String(DEADLINE_MS),
    CARRIER_TIMEOUT_MS: '1000',
    REFRESH_LEASE_SECONDS: '3',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1',
  }
}

/** A service under load, watched for an exit. */
interface Subject {
  service: ServiceProcess
  load: FaultLoad
  userId: number
  /** Throws if the service process exited. */
  alive(): void
}

async function startSubject(env: Record<string, string>, prefix: string): Promise<Subject> {
  const service = await startService(env)
  cleanups.push(() => service.stop())
  let exited: string | undefined
  service.process.once('exit', (code, signal) => (exited = `exited with ${code ?? signal}: ${service.output().slice(-3000)}`))
  const res = await fetch(`${service.baseUrl}/admin/api-users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: '{"name":"faults"}',
  })
  const user = ((await res.json()) as { data: { token: string; userId: number } }).data
  const callbackUrl = receiver.on(`/${prefix}`, () => ({ status: 200, delayMs: 30 }))
  const load = new FaultLoad({ baseUrl: service.baseUrl, token: user.token, prefix, carriers: ['FEDEX', 'UPARCEL', 'UPS'], callbackUrl })
  load.start()
  cleanups.push(() => load.stop())
  return {
    service,
    load,
    userId: user.userId,
    alive() {
      if (exited) throw new Error(`the service ${exited}`)
    },
  }
}

/**
 * The embedded server's connection string once it runs: after a fault the service starts it again,
 * and a write acknowledged just after the fault may have been served before the server went down.
 */
const runningUrl = (dataDir: string) => waitFor(() => runningServerUrl(dataDir), { timeoutMs: 30_000, what: 'the embedded server to run' })

/** Waits for `more` writes acknowledged from now on. */
async function acknowledged(subject: Subject, more: number, what: string): Promise<void> {
  const before = subject.load.count(200)
  await waitFor(() => (subject.alive(), subject.load.count(200) >= before + more), { timeoutMs: 60_000, what })
}

/** Waits for the first write acknowledged that was sent after `since`; how long after `since` it came. */
async function firstWriteAfter(subject: Subject, since: number, what: string, serverLog?: string): Promise<number> {
  const answer = await waitFor(() => (subject.alive(), subject.load.answers.find((a) => a.kind === 'subscribe' && a.status === 200 && a.sentAt > since)), {
    timeoutMs: 60_000,
    what,
  }).catch(async (error: Error) => {
    throw new Error(`${error.message}\n${await diagnosis(subject, since, serverLog)}`)
  })
  return answer.answeredAt - since
}

/** What the service answered since `since`, what it says of itself, and its (and its server's) last lines: a stuck recovery told from a slow one. */
async function diagnosis(subject: Subject, since: number, serverLog?: string): Promise<string> {
  const answered: Record<string, number> = {}
  for (const a of subject.load.answers.filter((a) => a.sentAt > since)) {
    const key = `${a.kind} ${a.status} ${a.msg ?? a.error ?? ''}`.slice(0, 160)
    answered[key] = (answered[key] ?? 0) + 1
  }
  const readiness = await fetch(`${subject.service.baseUrl}/readyz`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.text(), String)
  const said = subject.service.output().split('\n').slice(-40).join('\n')
  let server = ''
  if (serverLog) {
    try {
      server = `\nthe server's last lines:\n${readFileSync(serverLog, 'utf8').split('\n').slice(-40).join('\n')}`
    } catch (error) {
      server = `\n(no server log: ${(error as Error).message})`
    }
  }
  return `answers since: ${JSON.stringify(answered)}\nreadyz: ${readiness}\nthe service's last lines:\n${said}${server}`
}

async function ready(subject: Subject): Promise<{ status: number; msg: string }> {
  const res = await fetch(`${subject.service.baseUrl}/readyz`)
  return { status: res.status, msg: ((await res.json()) as { msg: string }).msg }
}

/**
 * Stops the load; then every answer was 200 or 503 `unavailable` with Retry-After, the process
 * never exited, every acknowledged subscribe is stored with the id it was answered, and every task
 * ends delivered, told once, with no lease left.
 */
async function settle(subject: Subject, databaseUrl: string): Promise<string> {
  await subject.load.stop()
  subject.alive()
  expect(subject.load.unexpected().slice(0, 5)).toEqual([])
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const { userId, load } = subject
  try {
    const open = async () =>
      Number(
        (
          await client.query<{ open: string }>(
            `SELECT (SELECT count(*) FROM tracking_tasks WHERE user_id = $1 AND standard_status <> 'delivered')
                  + (SELECT count(*) FROM deliveries WHERE user_id = $1 AND status <> 'success') AS open`,
            [userId],
          )
        ).rows[0]!.open,
      )
    await waitFor(async () => (subject.alive(), (await open()) === 0), {
      timeoutMs: 90_000,
      intervalMs: 250,
      what: 'every task delivered and every webhook sent',
    }).catch(async (error: Error) => {
      const tasks = await client.query(
        `SELECT t.carrier_code, standard_status, refresh_failures, round(EXTRACT(EPOCH FROM next_refresh_at - now())) AS due_in_s, count(*)::int
           FROM tracking_tasks t JOIN task_schedule s ON s.task_id = t.id WHERE user_id = $1 AND standard_status <> 'delivered' GROUP BY 1, 2, 3, 4`,
        [userId],
      )
      const deliveries = await client.query(
        `SELECT status, attempt_count, lease_owner IS NOT NULL AS leased, count(*)::int FROM deliveries WHERE user_id = $1 AND status <> 'success' GROUP BY 1, 2, 3`,
        [userId],
      )
      // What the service says of itself (its carriers' circuits, its loops' failures) tells a stuck
      // loop from a slow one.
      const readiness = await fetch(`${subject.service.baseUrl}/readyz`).then((r) => r.text(), String)
      const said = subject.service.output().split('\n').slice(-40).join('\n')
      throw new Error(
        `${error.message}: ${JSON.stringify({ tasks: tasks.rows, deliveries: deliveries.rows })}\nreadyz: ${readiness}\nthe service's last lines:\n${said}`,
      )
    })
    const { rows } = await client.query<{ tracking_number: string; id: number }>('SELECT tracking_number, id FROM tracking_tasks WHERE user_id = $1', [userId])
    const stored = new Map(rows.map((r) => [r.tracking_number, Number(r.id)]))
    expect([...load.acknowledged].filter(([number, id]) => stored.get(number) !== id)).toEqual([])
    const [told] = (
      await client.query<{ tasks: number; deliveries: number; not_once: number; leases: number }>(
        `SELECT (SELECT count(*)::int FROM tracking_tasks WHERE user_id = $1) AS tasks,
                (SELECT count(*)::int FROM deliveries WHERE user_id = $1) AS deliveries,
                (SELECT count(*)::int FROM (SELECT 1 FROM deliveries WHERE user_id = $1 GROUP BY task_id HAVING count(*) <> 1) x) AS not_once,
                (SELECT count(*)::int FROM refresh_claims c CROSS JOIN unnest(c.task_ids) AS h (task_id) JOIN task_schedule s ON s.task_id = h.task_id
                   JOIN tracking_tasks t ON t.id = h.task_id WHERE t.user_id = $1 AND c.lease_until > now() AND s.next_refresh_at <= now())
                  + (SELECT count(*)::int FROM deliveries WHERE user_id = $1 AND lease_owner IS NOT NULL) AS leases`,
        [userId],
      )
    ).rows
    expect(told).toMatchObject({ deliveries: told!.tasks, not_once: 0, leases: 0 })
    subject.alive()
    return `${load.acknowledged.size} subscribes acknowledged and stored, ${told!.tasks} tasks each delivered and told once; answers ${JSON.stringify(load.statuses())}`
  } finally {
    await client.end()
  }
}

const embeddedPostmaster = (dataDir: string) => Number(readFileSync(join(dataDir, 'postgresql', 'postmaster.pid'), 'utf8').split('\n')[0])
const label = onPostgres ? 'PostgreSQL' : 'embedded'

describe('the database server killed or restarted under load, again and again', () => {
  // Odd rounds kill the server outright (a crash, an OOM kill); even ones shut it down fast, as
  // an operator's restart or a failover does (sessions ended with 57P01).
  const ROUNDS = 6

  it(onPostgres ? 'PostgreSQL (a private cluster), started again by its operator' : 'the embedded server, started again by the service', async () => {
    let postgres: PrivatePostgres | undefined
    let dataDir = ''
    if (onPostgres) {
      postgres = await startPrivatePostgres()
      cleanups.push(() => postgres!.stop())
    } else dataDir = tempDataDir()
    const subject = await startSubject(serviceEnv(postgres ? { DATABASE_URL: postgres.url } : { DATA_DIR: dataDir }), 'DBKILL')
    const recoveries: Record<'killed' | 'restarted', number[]> = { killed: [], restarted: [] }
    for (let round = 1; round <= ROUNDS; round++) {
      await acknowledged(subject, 150, `acknowledged writes before round ${round}`)
      const fault = round % 2 === 1 ? 'killed' : 'restarted'
      const at = Date.now()
      if (postgres && fault === 'killed') {
        await postgres.kill()
        postgres.start()
      } else if (postgres) postgres.restart()
      else process.kill(embeddedPostmaster(dataDir), fault === 'killed' ? 'SIGKILL' : 'SIGINT')
      recoveries[fault].push(await firstWriteAfter(subject, at, `a write acknowledged after round ${round} (${fault})`))
    }
    const settled = await settle(subject, postgres?.url ?? (await runningUrl(dataDir)))
    console.log(
      `server killed / restarted (${label}): writes acknowledged again ${recoveries.killed.join(', ')} ms after each kill, ${recoveries.restarted.join(', ')} ms after each restart; ${settled}`,
    )
  })
})

describe('the disk under the database fills up', () => {
  it(
    onPostgres
      ? 'PostgreSQL (a private cluster on a small disk): 503 while full, writes again once the server is back'
      : 'the embedded database on a small disk: 503 while full, its server started again once there is space',
    async () => {
      const disk = mountSmallDisk(onPostgres ? 160 : 200)
      cleanups.push(() => disk.unmount())
      let postgres: PrivatePostgres | undefined
      let databaseUrl: () => Promise<string>
      let env: Record<string, string>
      let serverLog: string
      if (onPostgres) {
        postgres = await startPrivatePostgres({ parent: disk.dir, fsync: true })
        serverLog = join(postgres.dataDir, '..', 'log')
        cleanups.push(() => postgres!.stop())
        databaseUrl = async () => postgres!.url
        env = serviceEnv({ DATABASE_URL: postgres.url })
      } else {
        const dataDir = join(disk.dir, 'data')
        serverLog = join(dataDir, 'postgresql', 'server.log')
        databaseUrl = () => runningUrl(dataDir)
        env = serviceEnv({ DATA_DIR: dataDir })
      }
      const subject = await startSubject(env, 'DBFULL')
      await acknowledged(subject, 300, 'acknowledged writes before the disk fills')

      // Full: writes that need new space fail, and are answered 503 saying so; reads go on.
      const fullAt = Date.now()
      disk.fill()
      const refused = await waitFor(
        () => (subject.alive(), subject.load.answers.find((a) => a.sentAt > fullAt && a.status === 503 && /disk space/.test(a.msg ?? ''))),
        {
          timeoutMs: 30_000,
          what: 'a write refused for want of disk space',
        },
      )
      const readsWhileFull = subject.load.answers.filter((a) => a.kind === 'query' && a.sentAt > refused.answeredAt)
      await waitFor(
        () => readsWhileFull.length > 0 || subject.load.answers.some((a) => a.kind === 'query' && a.status === 200 && a.sentAt > refused.answeredAt),
        { what: 'a read while the disk is full' },
      )
      expect(subject.load.answers.filter((a) => a.kind === 'query' && a.sentAt > refused.answeredAt && a.status === 200).length).toBeGreaterThan(0)

      // The WAL needs its next segment (as it does every 16 MiB of writes) and there is no room:
      // PostgreSQL PANICs, and cannot start again while the disk stays full.
      const admin = new pg.Client({ connectionString: await databaseUrl() })
      admin.on('error', () => {})
      await admin.connect()
      await admin.query('SELECT pg_switch_wal()').catch(() => {})
      await admin.end().catch(() => {})
      let down = await waitFor(async () => (subject.alive(), (await ready(subject)).status === 503 ? await ready(subject) : undefined), {
        timeoutMs: 30_000,
        what: '/readyz to say the database is down',
      })
      if (!onPostgres) {
        // The service tries to start its server again, and says why it cannot.
        down = await waitFor(
          async () => {
            const answer = await ready(subject)
            return /disk .* is full/.test(answer.msg) ? answer : undefined
          },
          { timeoutMs: 30_000, what: () => `/readyz to name the full disk (${down.msg})` },
        )
      }
      const stillFull = Date.now()
      await waitFor(() => (subject.alive(), subject.load.count(503, stillFull) > 20), { what: '503s while the server is down' })

      // Space again: writes are taken again without a restart of the service.
      const freedAt = Date.now()
      disk.free()
      if (postgres) postgres.start()
      const back = await firstWriteAfter(subject, freedAt, 'a write acknowledged once space is freed', serverLog)
      const readyMsg = (await ready(subject)).msg
      const settled = await settle(subject, await databaseUrl())
      console.log(
        `full disk (${label}): writes refused 503 "${refused.msg}"; readyz while down: "${down.msg}"; writes acknowledged again ${back} ms after space was freed (readyz: ${readyMsg}); ${settled}`,
      )
    },
  )
})

describe('the database goes silent (no answer, no reset)', () => {
  const FAULT_MS = 10_000

  it(
    onPostgres
      ? 'the network to PostgreSQL holds every packet (a TCP proxy): no request waits past the deadline'
      : 'the embedded server hangs (every process stopped): no request waits past the deadline',
    async () => {
      let env: Record<string, string>
      let silence: () => void
      let speak: () => void
      let databaseUrl: () => Promise<string>
      if (onPostgres) {
        const database = await createTestDatabase()
        cleanups.push(() => database.close())
        const url = new URL(database.connectionString)
        const proxy = new SilentProxy(url.hostname, Number(url.port || 5432))
        await proxy.start()
        cleanups.push(() => proxy.stop())
        url.hostname = '127.0.0.1'
        url.port = String(proxy.port)
        env = serviceEnv({ DATABASE_URL: url.toString() })
        silence = () => proxy.goSilent()
        speak = () => proxy.speak()
        databaseUrl = async () => database.connectionString
      } else {
        const dataDir = tempDataDir()
        const cluster = join(dataDir, 'postgresql')
        env = serviceEnv({ DATA_DIR: dataDir })
        silence = () => void signalServer(cluster, 'SIGSTOP')
        speak = () => void signalServer(cluster, 'SIGCONT')
        cleanups.push(() => speak())
        databaseUrl = () => runningUrl(dataDir)
      }
      const run = await silentRun(env, silence, speak, FAULT_MS)
      const settled = await settle(run.subject, await databaseUrl())
      console.log(`silent database (${label}): ${run.summary}; ${settled}`)
    },
  )
})

/** Load, a silent spell of `faultMs`, and the answers' timing through it. */
async function silentRun(env: Record<string, string>, silence: () => void, speak: () => void, faultMs: number): Promise<{ subject: Subject; summary: string }> {
  const subject = await startSubject(env, 'DBSILENT')
  await acknowledged(subject, 300, 'acknowledged writes before the silence')
  const silentAt = Date.now()
  silence()
  await waitFor(() => (subject.alive(), Date.now() - silentAt >= faultMs), { timeoutMs: faultMs + 5_000, intervalMs: 100, what: 'the silent spell' })
  const readyDuring = await ready(subject)
  const spokeAt = Date.now()
  speak()
  const back = await firstWriteAfter(subject, spokeAt, 'a write acknowledged once the database answers again')

  // Every request answered during the spell or in flight when it began answered within the
  // deadline; none waited for the spell to end.
  const touched = (a: Answer) => a.answeredAt > silentAt && a.sentAt < spokeAt
  const during = subject.load.answers.filter(touched)
  const waited = (a: Answer) => a.answeredAt - Math.max(a.sentAt, silentAt)
  const longest = Math.max(...during.map(waited))
  const late = during.filter((a) => waited(a) > DEADLINE_MS + SLACK_MS)
  expect(readyDuring.status).toBe(503)
  expect(during.filter((a) => a.status === 503).length).toBeGreaterThan(10)
  expect(late.slice(0, 5)).toEqual([])
  return {
    subject,
    summary: `${during.length} requests answered during ${faultMs} ms of silence (${during.filter((a) => a.status === 503).length} × 503), the longest after ${longest} ms (deadline ${DEADLINE_MS} ms); writes acknowledged again ${back} ms after the database answered again`,
  }
}
