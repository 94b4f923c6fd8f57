import pg from 'pg'
import { createCarrierSimulator } from '../src/carriers/registry'
import { startService } from '../test/support/service-process'
import { simulatorEnv } from '../test/support/simulator-env'
import { postgresTicks, ticks } from './cpu'
import { type Row, fmt } from './report'

/**
 * What a fetch that finds nothing new writes. 3,000 active FedEx tasks polled every 5 s against a
 * carrier that answers the same each time (the simulator's stories held at their first stage),
 * measured for `seconds` after a checkpoint: the WAL written per fetch (the server's whole WAL:
 * nothing else runs on it meanwhile), the task rows it rewrote, and how many of the schedule's row
 * updates were HOT. Beside it the floor, in the same database after another checkpoint, for the
 * same number of fetches: one update of a narrow due-time table with one index, 30 rows a
 * statement as the refresh groups them.
 */

const TASKS = 3000
const POLL_SECONDS = 5
const REQUEST = 30

interface Counters {
  /** CPU ticks (10 ms) of the service and of every postgres process. */
  serviceTicks: number
  databaseTicks: number
  lsn: string
  /** Full-page images written (the cluster's). */
  fpi: number
  fetches: number
  taskUpdates: number
  scheduleUpdates: number
  scheduleHot: number
}

export async function refreshWalFigures(options: {
  kind: string
  env: Record<string, string>
  dbUrl: () => string
  adminToken: string
  row: Row
  seconds: number
}): Promise<void> {
  const { kind, env, dbUrl, adminToken, row, seconds } = options
  // Stories that stay at their first stage for the whole run: every answer is the one before.
  const sim = createCarrierSimulator({ stepMs: 86_400_000 })
  await sim.start()
  const worker = await startService({
    ...env,
    ROLE: process.env.WAL_ROLE ?? (kind === 'embedded' ? 'all' : 'worker'),
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    ...simulatorEnv(sim),
    POLL_INTERVAL_SECONDS: String(POLL_SECONDS),
    FEDEX_REQUESTS_PER_SECOND: '1000',
  })
  // After the service: the embedded server is reached once the service runs it.
  const client = new pg.Client({ connectionString: dbUrl() })
  await client.connect()
  try {
    const [{ id: userId }] = (
      await client.query<{ id: number }>(`INSERT INTO api_users (name, webhook_secret) VALUES ('wal', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') RETURNING id`)
    ).rows as [{ id: number }]
    await client.query(
      `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url)
       SELECT $1, 'FEDEX', 'DLWAL' || g, 'https://shop.example/hook' FROM generate_series(1, $2::int) g`,
      [userId, TASKS],
    )
    // Every task fetched once (its first answer changes it), then a poll interval of answers that do not.
    for (;;) {
      const { rows } = await client.query<{ left: number }>(
        `SELECT count(*)::int AS left FROM tracking_tasks WHERE user_id = $1 AND answer_fingerprint IS NULL`,
        [userId],
      )
      if (rows[0]!.left === 0) break
      await new Promise((r) => setTimeout(r, 200))
    }
    // Their first answers told the callbacks: that work is not the fetches' (deleted, with its attempts).
    await client.query(`DELETE FROM webhook_deliveries WHERE user_id = $1`, [userId])
    // Two polls of answers that change nothing, and a backend's statistics flushed (an idle one
    // flushes within 10 s).
    await new Promise((r) => setTimeout(r, (2 * POLL_SECONDS + 2) * 1000))

    const fetches = () => Object.entries(sim.stats().fetchesByNumber).reduce((sum, [number, n]) => sum + (number.startsWith('DLWAL') ? n : 0), 0)
    const read = async (): Promise<Counters> => {
      const { rows } = await client.query<{ lsn: string; fpi: string; task_updates: string; schedule_updates: string; schedule_hot: string }>(
        `SELECT pg_current_wal_lsn()::text AS lsn, (SELECT wal_fpi FROM pg_stat_wal) AS fpi,
                (SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'tracking_tasks') AS task_updates,
                (SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'task_schedule') AS schedule_updates,
                (SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'task_schedule') AS schedule_hot`,
      )
      const r = rows[0]!
      return {
        serviceTicks: ticks(worker.process.pid!),
        databaseTicks: postgresTicks(),
        lsn: r.lsn,
        fpi: Number(r.fpi),
        fetches: fetches(),
        taskUpdates: Number(r.task_updates),
        scheduleUpdates: Number(r.schedule_updates),
        scheduleHot: Number(r.schedule_hot),
      }
    }
    // The rows the first answers rewrote are vacuumed now: that is their cost, not the window's.
    await client.query('VACUUM tracking_tasks, tracking_events, webhook_deliveries, webhook_attempts, task_schedule, refresh_claims')
    await client.query('CHECKPOINT')
    // Statistics reach the shared counters within a second of a transaction's end.
    await new Promise((r) => setTimeout(r, 1500))
    const before = await read()
    await new Promise((r) => setTimeout(r, seconds * 1000))
    const after = await read()
    const wal = await walBetween(client, before.lsn, after.lsn)
    // For pg_waldump --stats=record --start … --end …, to see which records make it up.
    console.log(`  (WAL measured from ${before.lsn} to ${after.lsn}: ${fmt(after.fpi - before.fpi)} full-page images)`)
    const fetched = after.fetches - before.fetches
    const taskRows = after.taskUpdates - before.taskUpdates
    const scheduleRows = after.scheduleUpdates - before.scheduleUpdates
    const hot = after.scheduleHot - before.scheduleHot
    const cpuUs = (spent: number) => (spent * 10_000) / fetched
    // The tasks parked, so that the service (which keeps the embedded server) writes nothing more.
    await client.query(`UPDATE task_schedule SET next_refresh_at = NULL WHERE carrier_code = 'FEDEX'`)
    await new Promise((r) => setTimeout(r, 1000))
    const floor = await floorWal(client, fetched)
    const perFetch = wal / fetched
    row(
      kind,
      `no-change fetch: WAL a fetch (${fmt(fetched)} fetches in ${seconds} s)`,
      `${fmt(perFetch)} B`,
      `${fmt(floor)} B`,
      `${(perFetch / floor).toFixed(2)}×`,
      '≤ 1.5× the floor',
    )
    row(
      kind,
      'no-change fetch: task rows rewritten a fetch / schedule rows a fetch, HOT',
      `${(taskRows / fetched).toFixed(3)} / ${(scheduleRows / fetched).toFixed(2)}, ${scheduleRows === 0 ? 0 : Math.round((100 * hot) / scheduleRows)} % HOT`,
      '',
      '',
      '0 task rows',
    )
    row(
      kind,
      'no-change fetch: CPU a fetch, service / PostgreSQL',
      `${fmt(cpuUs(after.serviceTicks - before.serviceTicks))} / ${fmt(cpuUs(after.databaseTicks - before.databaseTicks))} µs`,
      '',
      '',
      '',
    )
  } finally {
    await client.end()
    await worker.stop()
    await sim.stop()
  }
}

async function walBetween(client: pg.Client, from: string, to: string): Promise<number> {
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
