import pg from 'pg'
import { carrierOf, createCarrierSimulator } from '../src/carriers/registry'
import { EVERY_CARRIER_UNBOUNDED } from './worker-settings'
import type { CarrierSimulator } from '../src/simulator/simulator'
import { startService, type ServiceProcess } from '../test/support/service-process'
import { simulatorEnv } from '../test/support/simulator-env'
import { postgresTicks, ticks } from './cpu'
import { createApiUser } from './api-user'
import { finishedAt, insertInactiveTasks, makeDue } from './finished'
import { startReceiver } from './loopback-receiver'
import { type FigureContext, fmt } from './report'

/**
 * What each kind of work writes and costs, per unit, measured in one run (docs/scaling.md builds
 * on them). WAL is the server's whole WAL between two readings, CPU the service's and every postgres
 * process's (/proc): nothing else runs meanwhile. 3,000 FedEx tasks:
 *
 * 1. subscribed one request each (50 at once) to an API process (ROLE=api), no worker running;
 * 2. fetched for the first time by a worker (the answer changes each task: events, status, a
 *    webhook), until every webhook is delivered to a receiver on loopback;
 * 3. polled every 5 s for `seconds` against a carrier that answers the same each time (the
 *    simulator's stories held at their first stage), after a checkpoint: the WAL of a fetch that
 *    finds nothing new, the task rows it rewrote and how many of the schedule's row updates were
 *    HOT. Beside it the floor, in the same database after another checkpoint, for the same number
 *    of fetches: one update of a narrow due-time table with one index, 30 rows a statement as the
 *    refresh groups them;
 * 4. the same for 3,000 tasks of each other carrier of the registry but uParcel and UPS (USPS,
 *    DHL and Canada Post answer one number a request, La Poste and GLS ten; inserted, then fetched
 *    once): a fetch that finds nothing new should cost what FedEx's does.
 */

const TASKS = 3000
const POLL_SECONDS = 5
const REQUEST = 30
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Counters {
  /** CPU ticks (10 ms) of the service and of every postgres process. */
  serviceTicks: number
  databaseTicks: number
  lsn: string
  /** Full-page images written (the cluster's). */
  fpi: number
  taskUpdates: number
  scheduleUpdates: number
  scheduleHot: number
}

async function read(client: pg.Client, service: ServiceProcess): Promise<Counters> {
  const { rows } = await client.query<{ lsn: string; fpi: string; task_updates: string; schedule_updates: string; schedule_hot: string }>(
    `SELECT pg_current_wal_lsn()::text AS lsn, (SELECT wal_fpi FROM pg_stat_wal) AS fpi,
            (SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'tracking_tasks') AS task_updates,
            (SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'task_schedule') AS schedule_updates,
            (SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'task_schedule') AS schedule_hot`,
  )
  const r = rows[0]!
  return {
    serviceTicks: ticks(service.process.pid!),
    databaseTicks: postgresTicks(),
    lsn: r.lsn,
    fpi: Number(r.fpi),
    taskUpdates: Number(r.task_updates),
    scheduleUpdates: Number(r.schedule_updates),
    scheduleHot: Number(r.schedule_hot),
  }
}

/** WAL bytes and CPU µs (service / PostgreSQL) per unit between two readings. */
async function perUnit(client: pg.Client, before: Counters, after: Counters, units: number) {
  const cpu = (spent: number) => (spent * 10_000) / units
  return {
    wal: (await walBetween(client, before.lsn, after.lsn)) / units,
    cpu: `${fmt(cpu(after.serviceTicks - before.serviceTicks))} / ${fmt(cpu(after.databaseTicks - before.databaseTicks))} µs`,
  }
}

async function connect(dbUrl: () => string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: dbUrl() })
  await client.connect()
  return client
}

export async function writeCostFigures(options: FigureContext): Promise<void> {
  const { kind, env, dbUrl, adminToken, row, seconds } = options
  // Stories that stay at their first stage for the whole run: every answer is the one before.
  const sim = createCarrierSimulator({ stepMs: 86_400_000 })
  await sim.start()
  const receiver = await startReceiver()
  const callbackUrl = receiver.url
  const common = { ...env, ADMIN_TOKEN: adminToken, LOG_LEVEL: 'warn', ...simulatorEnv(sim), RATE_LIMIT_PER_TOKEN: '0', RATE_LIMIT_PER_ADDRESS: '0' }
  try {
    // 1. Subscribe, with no worker to fetch what is subscribed.
    const api = await startService({ ...common, ROLE: 'api' })
    let userId: number
    let client = await connect(dbUrl)
    try {
      const user = await createApiUser(api.baseUrl, adminToken, 'costs')
      userId = user.userId
      await client.query('CHECKPOINT')
      const before = await read(client, api)
      let next = 0
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (next < TASKS) {
            const res = await fetch(`${api.baseUrl}/openapi/tracking-subscriptions`, {
              method: 'POST',
              headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ carrierCode: 'FEDEX', trackingNumber: `DLWAL${++next}`, callbackUrl }),
            })
            if (res.status !== 200) throw new Error(`subscribe: HTTP ${res.status}`)
            await res.arrayBuffer()
          }
        }),
      )
      const subscribed = await perUnit(client, before, await read(client, api), TASKS)
      row(kind, 'subscribe (a new task): WAL / CPU, service / PostgreSQL', `${fmt(subscribed.wal)} B / ${subscribed.cpu}`, '', '', '')
      // Parked until the worker has started.
      await client.query(`UPDATE task_schedule SET next_refresh_at = NULL WHERE carrier_code = 'FEDEX'`)
    } finally {
      await client.end()
      await api.stop()
    }

    // 2. The first fetch of each (it changes the task) and its webhook.
    const worker = await startService({
      ...common,
      ROLE: kind === 'embedded' ? 'all' : 'worker',
      POLL_INTERVAL_SECONDS: String(POLL_SECONDS),
      ...EVERY_CARRIER_UNBOUNDED,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    })
    // After the service: the embedded server is reached once the service runs it.
    client = await connect(dbUrl)
    try {
      await pause(2000)
      await client.query('CHECKPOINT')
      const before = await read(client, worker)
      await makeDue(client, 'user_id = $1', [userId])
      await finishedAt(client)(
        `SELECT NOT EXISTS (SELECT 1 FROM tracking_tasks WHERE user_id = $1 AND answer_fingerprint IS NULL)
            AND NOT EXISTS (SELECT 1 FROM deliveries WHERE user_id = $1 AND status <> 'success') AS done`,
        [userId],
      )
      const changed = await perUnit(client, before, await read(client, worker), TASKS)
      row(
        kind,
        'a fetch that changes the task, with its webhook delivered: WAL / CPU, service / PostgreSQL',
        `${fmt(changed.wal)} B / ${changed.cpu}`,
        '',
        '',
        '',
      )

      // 3. Fetches that find nothing new, FedEx's beside the floor, then USPS's and DHL's (one
      // number a request) beside FedEx's.
      const fedex = await noChangeFetches({ client, worker, sim, seconds, carrier: 'FEDEX', prefix: 'DLWAL' })
      const floor = await floorWal(client, fedex.fetched)
      row(
        kind,
        `no-change fetch: WAL a fetch (${fmt(fedex.fetched)} fetches in ${seconds} s)`,
        `${fmt(fedex.wal)} B`,
        `${fmt(floor)} B`,
        `${(fedex.wal / floor).toFixed(2)}×`,
        '≤ 1.5× the floor',
      )
      row(kind, 'no-change fetch: task rows rewritten a fetch / schedule rows a fetch, HOT', fedex.rows, '', '', '0 task rows')
      row(kind, 'no-change fetch: CPU a fetch, service / PostgreSQL', fedex.cpu, '', '', '')
      // USPS and DHL were held to 1.2× FedEx when they came; the carriers after them to 1.1×.
      for (const [carrier, target] of [
        ['USPS', 1.2],
        ['DHL', 1.2],
        ['LAPOSTE', 1.1],
        ['GLS', 1.1],
        ['CANADAPOST', 1.1],
      ] as const) {
        const prefix = `DLW${carrier}`
        await insertInactiveTasks(client, { userId, carrierCode: carrier, prefix, callbackUrl, count: TASKS })
        const other = await noChangeFetches({ client, worker, sim, seconds, carrier, prefix, userId })
        row(
          kind,
          `no-change fetch, ${carrier} (${carrierOf(carrier)!.numbersPerRequest} a request): WAL a fetch (${fmt(other.fetched)} fetches), beside FedEx's`,
          `${fmt(other.wal)} B`,
          `${fmt(fedex.wal)} B`,
          `${(other.wal / fedex.wal).toFixed(2)}×`,
          `≤ ${target}× FedEx`,
        )
        row(kind, `no-change fetch, ${carrier}: task rows rewritten a fetch / schedule rows a fetch, HOT`, other.rows, '', '', '0 task rows')
        row(kind, `no-change fetch, ${carrier}: CPU a fetch, service / PostgreSQL`, other.cpu, '', '', '')
      }
    } finally {
      await client.end()
      await worker.stop()
    }
  } finally {
    receiver.close()
    await sim.stop()
  }
}

/**
 * One carrier's fetches that find nothing new. Its tasks numbered `prefix`…, when `userId` is
 * given, are first made due and fetched once (which changes them); then two polls of them, and a
 * backend's statistics flushed (an idle one flushes within 10 s); the rows the first answers
 * rewrote vacuumed (that is their cost, not the window's); then `seconds` of polls measured. The
 * carrier's tasks are parked afterwards, so that the service writes nothing more for them.
 */
async function noChangeFetches(o: {
  client: pg.Client
  worker: ServiceProcess
  sim: CarrierSimulator
  seconds: number
  carrier: string
  prefix: string
  userId?: number
}) {
  const { client, worker, sim, seconds, carrier, prefix } = o
  if (o.userId !== undefined) {
    await makeDue(client, 'user_id = $1 AND carrier_code = $2', [o.userId, carrier])
    await finishedAt(client)(
      `SELECT NOT EXISTS (SELECT 1 FROM tracking_tasks WHERE user_id = $1 AND carrier_code = $2 AND answer_fingerprint IS NULL)
          AND NOT EXISTS (SELECT 1 FROM deliveries WHERE user_id = $1 AND status <> 'success') AS done`,
      [o.userId, carrier],
    )
  }
  await pause((2 * POLL_SECONDS + 2) * 1000)
  await client.query('VACUUM tracking_tasks, tracking_events, deliveries, delivery_attempts, task_schedule, refresh_claims')
  await client.query('CHECKPOINT')
  await pause(1500)
  const fetches = () => Object.entries(sim.stats().fetchesByNumber).reduce((sum, [number, n]) => sum + (number.startsWith(prefix) ? n : 0), 0)
  const [from, fetchedBefore] = [await read(client, worker), fetches()]
  await pause(seconds * 1000)
  const [to, fetched] = [await read(client, worker), fetches() - fetchedBefore]
  // For pg_waldump --stats=record --start … --end …, to see which records make it up.
  console.log(`  (${carrier}'s no-change fetches' WAL from ${from.lsn} to ${to.lsn}: ${fmt(to.fpi - from.fpi)} full-page images)`)
  const quiet = await perUnit(client, from, to, fetched)
  const scheduleRows = to.scheduleUpdates - from.scheduleUpdates
  // Parked while the worker still writes their schedule rows (ten at a time for La Poste and GLS,
  // in its own order): a deadlock between the two is this harness's, and parking is tried again.
  for (let attempt = 1; ; attempt++) {
    try {
      await client.query(`UPDATE task_schedule SET next_refresh_at = NULL WHERE carrier_code = $1`, [carrier])
      break
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt >= 5) throw error
    }
  }
  await pause(1000)
  const hot = scheduleRows === 0 ? 0 : Math.round((100 * (to.scheduleHot - from.scheduleHot)) / scheduleRows)
  return {
    fetched,
    wal: quiet.wal,
    cpu: quiet.cpu,
    rows: `${((to.taskUpdates - from.taskUpdates) / fetched).toFixed(3)} / ${(scheduleRows / fetched).toFixed(2)}, ${hot} % HOT`,
  }
}

export async function walBetween(client: pg.Client, from: string, to: string): Promise<number> {
  const { rows } = await client.query<{ bytes: string }>(`SELECT pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn) AS bytes`, [from, to])
  return Number(rows[0]!.bytes)
}

/** WAL a fetch of the floor: `fetches` rows of a narrow table moved forward 30 at a time, each statement its own transaction. */
async function floorWal(client: pg.Client, fetches: number): Promise<number> {
  await client.query('CREATE TABLE bench_wal_floor (task_id bigint NOT NULL, due_at timestamptz NOT NULL)')
  await client.query('CREATE INDEX ON bench_wal_floor (due_at)')
  await client.query(`INSERT INTO bench_wal_floor SELECT g, now() + make_interval(secs => g * $2::float8 / $1) FROM generate_series(1, $1::int) g`, [
    TASKS,
    POLL_SECONDS,
  ])
  await client.query('VACUUM ANALYZE bench_wal_floor')
  await client.query('CHECKPOINT')
  const from = (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn
  for (let done = 0; done < fetches; done += REQUEST) {
    await client.query(
      `UPDATE bench_wal_floor SET due_at = now() + make_interval(secs => $2)
        WHERE ctid IN (SELECT ctid FROM bench_wal_floor ORDER BY due_at LIMIT $1)`,
      [Math.min(REQUEST, fetches - done), POLL_SECONDS],
    )
  }
  const to = (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn
  await client.query('DROP TABLE bench_wal_floor')
  return (await walBetween(client, from, to)) / fetches
}
