import { notificationFigures } from './notification-figures'
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import pg from 'pg'
import { runningServerUrl } from '../src/db/embedded/embedded-server'
import { tempDataDir } from '../test/support/run-database'
import { freePort, startService, type ServiceProcess } from '../test/support/service-process'
import { burstFigures } from './burst-figures'
import { carrierFigures } from './carrier-figures'
import { consoleFigures } from './console-figures'
import { listFigures } from './list-figures'
import { csvFigures } from './csv-figures'
import { pushFigures } from './push-figures'
import { upsAlertFigures } from './ups-alert-figures'
import { pageFigures } from './page-figures'
import { load, warmLoad } from './load'
import { startReceiver } from './loopback-receiver'
import { pss, serverPids } from './memory'
import { fmt } from './report'
import { npmStartMemory } from './npm-start-memory'
import { seed } from './seed'
import { writeCostFigures } from './write-costs'
import { predictionFigures } from './prediction-figures'
import { workerFigures } from './worker-figures'
import { subscribeSlices } from './subscribe-figures'
import { postgresTicks } from './cpu'

/**
 * `npm run bench`: every performance figure, each against a ceiling measured in the
 * same run on the same machine, on PostgreSQL and on the embedded database. Loopback only, bounded
 * in time. Prints a markdown table (docs/performance.md keeps the latest).
 *
 *   npm run bench -- [--db postgres|embedded|both] [--seconds 8] [--large 1000000]
 *                    [--api-only x | --workers-only x | --burst-only x | --carriers-only x | --wal-only x | --memory-only x
 *                     | --prediction-only x | --notifications-only x | --pushes-only x]
 *                    [--only subscribe,batch,query,page,list,console,csv] [--wal-seconds 30]
 *                    [--outage-tasks 500000]
 */

const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith('--') ? [[a.slice(2), all[i + 1] ?? '']] : [])))
const SECONDS = Number(args.get('seconds') ?? 8)
const DBS = (args.get('db') ?? 'both') === 'both' ? ['postgres', 'embedded'] : [args.get('db')!]
const LARGE = Number(args.get('large') ?? 1_000_000)
// The API figures to measure (all by default): for a quick look at one of them.
const ONLY = args.get('only')?.split(',')
const measures = (figure: 'subscribe' | 'batch' | 'query' | 'page' | 'list' | 'console' | 'csv') => !ONLY || ONLY.includes(figure)
const ADMIN_TOKEN = 'bench-admin-token-0000'
const rows: string[][] = []

function row(db: string, figure: string, value: string, ceiling: string, ratio: string, target: string) {
  rows.push([db, figure, value, ceiling, ratio, target])
  console.log(`  ${figure}: ${value} | ceiling ${ceiling} | ${ratio} | target ${target}`)
}

/** What a service costs: its own PSS, plus its embedded server's processes when it has one. */
const servicePss = (service: ServiceProcess, dataDir: string | undefined) =>
  [service.process.pid!, ...(dataDir ? serverPids(dataDir) : [])].reduce((sum, pid) => sum + pss(pid), 0)

async function withDatabase(kind: string, run: (env: Record<string, string>, dbUrl: () => string) => Promise<void>) {
  if (kind === 'postgres') {
    const server = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres'
    const name = `bench_${process.pid}`
    const admin = new pg.Client({ connectionString: server })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    const url = new URL(server)
    url.pathname = `/${name}`
    try {
      await run({ DATABASE_URL: url.toString() }, () => url.toString())
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }
    return
  }
  const dataDir = tempDataDir()
  try {
    // Start times and memory of the embedded database (PSS summed over the service and its
    // server's processes): the first start creates the database (initdb), later starts find it.
    const env = { DATA_DIR: dataDir, ROLE: 'api', ADMIN_TOKEN, LOG_LEVEL: 'warn' }
    let started = performance.now()
    const first = await startService(env, 60_000, 10)
    const firstMs = performance.now() - started
    await settle()
    row(kind, 'first start on a fresh DATA_DIR → /healthz 200', `${fmt(firstMs)} ms`, '', '', '≤ 3,000 ms')
    row(kind, 'PSS idle after the first start (service + server)', `${fmt(servicePss(first, dataDir))} MiB`, '', '', '≤ 200 MiB')
    await first.stop()
    started = performance.now()
    const later = await startService(env, 60_000, 10)
    const laterMs = performance.now() - started
    await settle()
    row(kind, 'later start → /healthz 200', `${fmt(laterMs)} ms`, '', '', '≤ 1,500 ms')
    row(kind, 'PSS idle after a restart (service + server)', `${fmt(servicePss(later, dataDir))} MiB`, '', '', '≤ 200 MiB')
    await later.stop()
    // The figures below run on this directory; its server is reached through its socket.
    await run({ DATA_DIR: dataDir }, () => runningServerUrl(dataDir)!)
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** A moment for a freshly started process to finish what it does after it first answers. */
const settle = () => new Promise((r) => setTimeout(r, 2000))

async function api(service: ServiceProcess, path: string, body: unknown, token = ADMIN_TOKEN) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return ((await res.json()) as { data: Record<string, unknown> }).data
}

/** The ceiling server (bench/ceiling-server.ts) on `port`, once it answers. */
function startCeiling(dbUrl: string, port: number, poolSize: number): Promise<{ stop: () => void; pid: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/ceiling-server.ts'], {
    env: { ...process.env, CEILING_DATABASE_URL: dbUrl, PORT: String(port), CEILING_POOL: String(poolSize) },
    stdio: 'inherit',
  })
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      fetch(`http://127.0.0.1:${port}/task?id=1`).then(
        () => {
          clearInterval(poll)
          resolve({ stop: () => child.kill('SIGTERM'), pid: child.pid! })
        },
        () => {},
      )
    }, 100)
  })
}

/**
 * Subscribe as `npm start` runs the service (ROLE=all): its workers fetch every new task from the
 * built-in simulator and plan its webhook, yielding to the API while it is saturated (docs/refresh.md,
 * "API first"). What they were left with is fetched before every slice, the ceiling's and the
 * service's, so that no slice carries it; the time that took is shown. On a database of its own
 * tasks only; they are parked afterwards so that nothing else measured later refreshes them.
 */
async function subscribeAsNpmStart(kind: string, env: Record<string, string>, dbUrl: () => string) {
  const receiver = await startReceiver()
  const service = await startService({
    ...env,
    ROLE: 'all',
    ADMIN_TOKEN,
    RATE_LIMIT_PER_TOKEN: '0',
    RATE_LIMIT_PER_ADDRESS: '0',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // A carrier's pace, not the built-in simulator's demo pace of a minute: at that pace the
    // workers would poll every task subscribed so far once a minute, hundreds of thousands by the
    // last slice, which is no work a subscribe makes.
    POLL_INTERVAL_SECONDS: '7200',
  })
  const user = await api(service, '/admin/api-users', { name: 'bench-npm-start' })
  const ceilingPort = await freePort()
  const ceiling = await startCeiling(dbUrl(), ceilingPort, 10)
  const client = new pg.Client({ connectionString: dbUrl() })
  // An embedded server going down under the client is not this figure's failure.
  client.on('error', () => {})
  await client.connect()
  try {
    await subscribeSlices({
      kind,
      label: 'ROLE=all (npm start)',
      serviceUrl: `${service.baseUrl}/openapi/tracking-subscriptions`,
      headers: { authorization: `Bearer ${user.token as string}`, 'content-type': 'application/json' },
      servicePid: service.process.pid!,
      ceilingUrl: `http://127.0.0.1:${ceilingPort}/upsert`,
      ceilingPid: ceiling.pid,
      databaseTicks: postgresTicks,
      seconds: SECONDS,
      target: '≥ 1.5×',
      row,
      prefix: 'ALL',
      callbackUrl: receiver.url,
      settle: () => backlogDone(client),
    })
    const { rows: fetched } = await client.query<{ fetched: string; tasks: string }>(
      `SELECT count(*) FILTER (WHERE last_fetched_at IS NOT NULL) AS fetched, count(*) AS tasks FROM task_schedule`,
    )
    row(
      kind,
      '  ROLE=all: tasks its workers fetched by the end / subscribed',
      `${fmt(Number(fetched[0]!.fetched))} / ${fmt(Number(fetched[0]!.tasks))}`,
      '',
      '',
      '',
    )
  } finally {
    ceiling.stop()
    // Parked while the service (and, embedded, the server it runs) is still up.
    await client.query(`UPDATE task_schedule SET next_refresh_at = NULL`)
    await client.end()
    await service.stop()
    receiver.close()
  }
}

/**
 * Waits (two minutes at most) until the service's workers have fetched every task subscribed and
 * delivered every webhook it made; the seconds it took.
 */
async function backlogDone(client: pg.Client): Promise<number> {
  const started = performance.now()
  const left = async () => {
    const { rows } = await client.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM task_schedule WHERE last_fetched_at IS NULL AND next_refresh_at IS NOT NULL)
            + (SELECT count(*) FROM deliveries WHERE status IN ('pending', 'retry_wait', 'sending')) AS n`,
    )
    return Number(rows[0]!.n)
  }
  while ((await left()) > 0 && performance.now() - started < 120_000) await new Promise((r) => setTimeout(r, 200))
  return (performance.now() - started) / 1000
}

async function apiFigures(kind: string, env: Record<string, string>, dbUrl: () => string) {
  const service = await startService({ ...env, ROLE: 'api', ADMIN_TOKEN, RATE_LIMIT_PER_TOKEN: '0', RATE_LIMIT_PER_ADDRESS: '0', LOG_LEVEL: 'warn' })
  const dataDir = env.DATA_DIR
  const idle = servicePss(service, dataDir)
  const user = await api(service, '/admin/api-users', { name: 'bench' })
  const headers = { authorization: `Bearer ${user.token as string}`, 'content-type': 'application/json' }
  const embedded = kind === 'embedded'
  const ceilingPort = await freePort()
  const ceiling = await startCeiling(dbUrl(), ceilingPort, 10)
  // PSS is read twice per load, in its middle and at its end, not on a timer: reading a process's
  // smaps takes its memory-map lock, and sampling fifteen server processes five times a second
  // stalled their queries (embedded query p99 25-35 ms sampled, 8-10 ms not).
  let peak = idle
  const sample = () => (peak = Math.max(peak, servicePss(service, dataDir)))
  try {
    // 1. Subscribe.
    if (measures('subscribe')) {
      const midway = setTimeout(sample, (SECONDS * 1000) / 2)
      await subscribeSlices({
        kind,
        label: 'ROLE=api',
        serviceUrl: `${service.baseUrl}/openapi/tracking-subscriptions`,
        headers,
        servicePid: service.process.pid!,
        ceilingUrl: `http://127.0.0.1:${ceilingPort}/upsert`,
        ceilingPid: ceiling.pid,
        databaseTicks: postgresTicks,
        seconds: SECONDS,
        target: '≥ 1.5×',
        row,
        prefix: 'SUB',
      })
      clearTimeout(midway)
      sample()
      row(kind, `PSS at the peak of the subscribe load (service${embedded ? ' + server' : ''})`, `${fmt(peak)} MiB`, '', '', embedded ? '≤ 300 MiB' : '')
    }
    // 2. Batch of 100.
    if (measures('batch')) await batchFigures(kind, service, headers, dbUrl)
    sample()
    // 3. Query, at 10,000 tasks and at the large size.
    if (measures('query') || measures('page') || measures('list') || measures('console') || measures('csv'))
      await queryFigures(kind, service, dbUrl, ceilingPort)
    sample()
    row(kind, `PSS idle / after every load (service${embedded ? ' + server' : ''})`, `${fmt(idle)} / ${fmt(peak)} MiB`, '', '', '')
  } finally {
    ceiling.stop()
    await service.stop()
  }
}

async function batchFigures(kind: string, service: ServiceProcess, headers: Record<string, string>, dbUrl: () => string) {
  let b = 0
  const batchBody = () =>
    JSON.stringify({
      items: Array.from({ length: 100 }, (_, i) => ({ carrierCode: 'UPARCEL', trackingNumber: `BAT${++b}x${i}`, callbackUrl: 'https://shop.example/hook' })),
    })
  const batchLoad = (seconds: number) =>
    load({ url: `${service.baseUrl}/openapi/tracking-subscriptions/batch`, method: 'POST', connections: 10, seconds, headers, body: batchBody })
  // The batch's ceiling is a raw 100-row pg upsert: statements back to back on one connection. Into a copy of tracking_tasks (same
  // columns and indexes), it is what the database itself costs for these rows; into the
  // ceiling server's minimal table (one unique index), what the bare machine does. Both shown.
  // The figure and its ceilings take turns in four slices of the run: this host's speed drifts
  // by a third within a minute, which one figure measured after the other took for a ratio.
  await batchLoad(2) // unmeasured, as for the queries: the service's first moments are the JIT's
  // A copy of the service's table: same columns, defaults and indexes (no data, no foreign keys).
  const setup = new pg.Client({ connectionString: dbUrl() })
  await setup.connect()
  await setup.query(`CREATE TABLE IF NOT EXISTS bench_batch_ceiling (LIKE tracking_tasks INCLUDING ALL)`)
  await setup.end()
  const slices = 4
  const figure: number[] = []
  const sameTable: number[] = []
  const minimal: number[] = []
  let failed = 0
  for (let i = 0; i < slices; i++) {
    const batch = await batchLoad(SECONDS / slices)
    figure.push(batch.requestsPerSecond * 100)
    failed += batch.non2xx + batch.errors
    sameTable.push(await rawBatchCeiling(dbUrl(), 'bench_batch_ceiling', SECONDS / slices))
    minimal.push(await rawBatchCeiling(dbUrl(), 'bench_ceiling', SECONDS / slices))
  }
  const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length
  const [items, same, bare] = [mean(figure), mean(sameTable), mean(minimal)]
  row(
    kind,
    'batch of 100: items/s (10 conn)',
    fmt(items),
    `${fmt(same)} same table; ${fmt(bare)} minimal table`,
    `${(items / same).toFixed(2)}× (${(items / bare).toFixed(2)}×)`,
    '≥ 0.75× (≥ 30,000/s)',
  )
  console.log(`  (batch slices: ${figure.map(fmt).join(', ')}; same-table ceiling slices: ${sameTable.map(fmt).join(', ')})`)
  if (failed > 0) console.log(`  (batch: ${failed} non-2xx or errors)`)
}

async function queryFigures(kind: string, service: ServiceProcess, dbUrl: () => string, ceilingPort: number) {
  const client = new pg.Client({ connectionString: dbUrl() })
  await client.connect()
  const [{ id: seedUser }] = (await client.query<{ id: number }>(`INSERT INTO api_users (name, webhook_secret) VALUES ('seed', 'whsec_x') RETURNING id`))
    .rows as [{ id: number }]
  const token = ((await api(service, `/admin/api-users/${seedUser}/tokens`, {})) as { token: string }).token
  let seeded = 0
  for (const size of [10_000, LARGE]) {
    const started = Date.now()
    await seed(client, seedUser, size - seeded, `Q${seeded}-`)
    seeded = size
    const { rows: range } = await client.query<{ min: string; max: string }>('SELECT min(id), max(id) FROM tracking_tasks WHERE user_id = $1', [seedUser])
    const [min, max] = [Number(range[0]!.min), Number(range[0]!.max)]
    console.log(`  seeded ${fmt(size)} tasks and ${fmt(size * 10)} events in ${((Date.now() - started) / 1000).toFixed(0)} s`)
    if (!measures('query')) continue
    const randomId = () => min + Math.floor(Math.random() * (max - min + 1))
    const auth = { authorization: `Bearer ${token}` }
    const byId = await warmLoad({
      url: service.baseUrl,
      connections: 50,
      seconds: SECONDS,
      headers: auth,
      path: () => `/openapi/tracking-subscriptions?taskId=${randomId()}`,
    })
    const byNumber = await warmLoad({
      url: service.baseUrl,
      connections: 50,
      seconds: SECONDS,
      headers: auth,
      path: () => `/openapi/tracking-subscriptions?trackingNumber=Q${Math.random() < 0.5 ? 0 : 10_000}-${1 + Math.floor(Math.random() * 10_000)}`,
    })
    const pk = await warmLoad({ url: `http://127.0.0.1:${ceilingPort}`, connections: 50, seconds: SECONDS, path: () => `/task?id=${randomId()}` })
    const label = `${fmt(size)} tasks / ${fmt(size * 10)} events`
    row(
      kind,
      `query by taskId, ${label}`,
      `${fmt(byId.requestsPerSecond)} req/s, p99 ${byId.p99Ms} ms`,
      `${fmt(pk.requestsPerSecond)} req/s, p99 ${pk.p99Ms} ms`,
      `${(byId.requestsPerSecond / pk.requestsPerSecond).toFixed(2)}×`,
      'p99 < 20 ms',
    )
    row(kind, `query by trackingNumber, ${label}`, `${fmt(byNumber.requestsPerSecond)} req/s, p99 ${byNumber.p99Ms} ms`, '', '', 'p99 < 20 ms')
  }
  if (measures('page')) await pageFigures(kind, service, client, seedUser, seeded, ceilingPort, row, SECONDS)
  if (measures('list')) await listFigures(kind, service, token, seeded, seedUser, ceilingPort, row, SECONDS)
  if (measures('console')) await consoleFigures(kind, service, ADMIN_TOKEN, seeded, row)
  if (measures('csv')) await csvFigures(kind, service, token, seeded, seedUser, dbUrl, row)
  // The tasks the API figures made are not the refresh benchmark's: park them so the worker leaves
  // them be (the seeded active ones are due in a day already).
  await client.query(`UPDATE task_schedule SET next_refresh_at = NULL WHERE next_refresh_at < now() + interval '1 hour'`)
  await client.end()
}

/** The batch ceiling: raw 100-row upserts with pg into `table`, back to back on one connection. */
async function rawBatchCeiling(dbUrl: string, table: string, seconds: number): Promise<number> {
  const client = new pg.Client({ connectionString: dbUrl })
  await client.connect()
  let rowsDone = 0
  const started = Date.now()
  while (Date.now() - started < seconds * 1000) {
    // New numbers on every call (the counter outlives it): each row is an insert, as in the figure.
    const numbers = Array.from({ length: 100 }, () => `RAW${++rawNumber}`)
    await client.query(
      `INSERT INTO ${table} (user_id, carrier_code, tracking_number, callback_url)
       SELECT 1, 'UPARCEL', n, 'https://shop.example/hook' FROM unnest($1::text[]) n
       ON CONFLICT (user_id, carrier_code, tracking_number) DO UPDATE SET callback_url = EXCLUDED.callback_url`,
      [numbers],
    )
    rowsDone += 100
  }
  const elapsed = (Date.now() - started) / 1000
  await client.end()
  return rowsDone / elapsed
}
let rawNumber = 0

console.log(`bench: ${cpus().length} cores (${cpus()[0]?.model}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${SECONDS} s per load`)
for (const kind of DBS) {
  console.log(`\n== ${kind}`)
  if (
    kind === 'embedded' &&
    (args.has('memory-only') ||
      !['api-only', 'workers-only', 'burst-only', 'carriers-only', 'wal-only', 'prediction-only', 'notifications-only', 'pushes-only'].some((a) => args.has(a)))
  ) {
    await npmStartMemory(row, SECONDS, ADMIN_TOKEN)
  }
  if (args.has('memory-only')) continue
  await withDatabase(kind, async (env, dbUrl) => {
    if (args.has('burst-only')) return burstFigures(kind, env, dbUrl, ADMIN_TOKEN, row, SECONDS)
    const wal = () => writeCostFigures({ kind, env, dbUrl, adminToken: ADMIN_TOKEN, row, seconds: Number(args.get('wal-seconds') ?? 30) })
    if (args.has('wal-only')) return wal()
    const carriers = () =>
      carrierFigures({ kind, env, dbUrl, adminToken: ADMIN_TOKEN, row, seconds: SECONDS, outageTasks: Number(args.get('outage-tasks') ?? 500_000) })
    if (args.has('carriers-only')) return carriers()
    const prediction = () => predictionFigures({ kind, env, dbUrl, adminToken: ADMIN_TOKEN, row, seconds: SECONDS })
    if (args.has('prediction-only')) return prediction()
    const notifications = () => notificationFigures({ kind, env, dbUrl, adminToken: ADMIN_TOKEN, row, seconds: SECONDS })
    if (args.has('notifications-only')) return notifications()
    const pushes = async () => {
      await pushFigures({ kind, env, dbUrl, adminToken: ADMIN_TOKEN, row, seconds: SECONDS })
      await upsAlertFigures({ kind, env, dbUrl, adminToken: ADMIN_TOKEN, row, seconds: SECONDS })
    }
    if (args.has('pushes-only')) return pushes()
    // The workers' figures first, on a database that is still small and quiet: after the API
    // figures seed a million tasks and ten million events, autovacuum works through them for
    // minutes and took half of every worker figure (and of the receiver's ceiling) in the same run.
    if (!args.has('api-only')) {
      await wal()
      await workerFigures({ kind, env, dbUrl, adminToken: ADMIN_TOKEN, row, seconds: SECONDS })
      await burstFigures(kind, env, dbUrl, ADMIN_TOKEN, row, SECONDS)
      await carriers()
      await prediction()
      await notifications()
      await pushes()
    }
    if (!args.has('workers-only')) {
      if (measures('subscribe')) await subscribeAsNpmStart(kind, env, dbUrl)
      await apiFigures(kind, env, dbUrl)
    }
  })
}
console.log('\n| database | figure | value | ceiling | ratio | target |\n|---|---|---|---|---|---|')
for (const r of rows) console.log(`| ${r.join(' | ')} |`)
