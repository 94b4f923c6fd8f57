import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import pg from 'pg'
import { postgresTicks, ticks } from './cpu'
import { REFRESH_FIGURE_WORKER_ENV } from './worker-settings'

/**
 * One run of refresh-ab.ts, inside the checkout it measures (the working directory): that
 * checkout's service as a worker process (ROLE=worker), its simulator, a receiver that answers 200,
 * on a fresh PostgreSQL database. TASKS tasks are made due at once; the run ends when every one has
 * been fetched. Prints one JSON line: numbers/s, PostgreSQL's and the worker's CPU per 1,000
 * numbers (from /proc: every postgres process of the machine, so run it on a quiet one), WAL.
 */

interface Simulator {
  start(): Promise<void>
  stop(): Promise<void>
}

const checkout = process.cwd()
const tasks = Number(process.env.TASKS ?? 10_000)
const server = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres'

const { startService } = (await import(join(checkout, 'test/support/service-process.ts'))) as typeof import('../test/support/service-process')
const { simulatorEnv } = (await import(join(checkout, 'test/support/simulator-env.ts'))) as { simulatorEnv(sim: Simulator): Record<string, string> }
// A checkout with a carrier registry makes its simulator there; an older one in src/simulator/.
const sim: Simulator = existsSync(join(checkout, 'src/carriers/registry.ts'))
  ? ((await import(join(checkout, 'src/carriers/registry.ts'))) as { createCarrierSimulator(o: { stepMs: number }): Simulator }).createCarrierSimulator({
      stepMs: 0,
    })
  : new ((await import(join(checkout, 'src/simulator/simulator.ts'))) as { CarrierSimulator: new (o: { stepMs: number }) => Simulator }).CarrierSimulator({
      stepMs: 0,
    })
await sim.start()
const receiver = createServer((req, res) => {
  req.resume()
  req.on('end', () => res.writeHead(200).end('ok'))
})
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`

const name = `refresh_ab_${process.pid}`
const admin = new pg.Client({ connectionString: server })
await admin.connect()
await admin.query(`CREATE DATABASE ${name}`)
const url = new URL(server)
url.pathname = `/${name}`
const worker = await startService({
  DATABASE_URL: url.toString(),
  ROLE: 'worker',
  LOG_LEVEL: 'warn',
  ...simulatorEnv(sim),
  ...REFRESH_FIGURE_WORKER_ENV,
})
const client = new pg.Client({ connectionString: url.toString() })
await client.connect()
try {
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO api_users (name, webhook_secret) VALUES ('refresh-ab', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') RETURNING id`,
  )
  const userId = rows[0]!.id
  // Either schema: the schedule in a table of its own (task_schedule), or on the task's row.
  const { rows: schema } = await client.query<{ own: boolean }>(`SELECT to_regclass('task_schedule') IS NOT NULL AS own`)
  const own = schema[0]!.own
  await client.query(
    `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, ${own ? 'inactive_since' : 'next_refresh_at'})
     SELECT $1, CASE WHEN g % 2 = 0 THEN 'FEDEX' ELSE 'UPARCEL' END, 'DLB' || g, $2, ${own ? 'now()' : 'NULL'} FROM generate_series(1, $3::int) g`,
    [userId, receiverUrl, tasks],
  )
  await client.query('VACUUM ANALYZE')
  const wal = async () => Number((await admin.query<{ wal: string }>(`SELECT pg_current_wal_lsn() - '0/0'::pg_lsn AS wal`)).rows[0]!.wal)
  const [database0, worker0, wal0] = [postgresTicks(), ticks(worker.process.pid!), await wal()]
  const started = Date.now()
  await client.query(
    own
      ? `WITH due AS (UPDATE tracking_tasks SET inactive_since = NULL WHERE user_id = $1 RETURNING id)
         UPDATE task_schedule s SET next_refresh_at = now() FROM due WHERE s.task_id = due.id`
      : `UPDATE tracking_tasks SET next_refresh_at = now() WHERE user_id = $1`,
    [userId],
  )
  for (;;) {
    const { rows: left } = await client.query<{ done: boolean }>(
      own
        ? `SELECT count(*) FILTER (WHERE s.last_fetched_at IS NULL) = 0 AS done FROM tracking_tasks t JOIN task_schedule s ON s.task_id = t.id WHERE t.user_id = $1`
        : `SELECT count(*) FILTER (WHERE last_fetched_at IS NULL) = 0 AS done FROM tracking_tasks WHERE user_id = $1`,
      [userId],
    )
    if (left[0]!.done) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const seconds = (Date.now() - started) / 1000
  const per1000 = (ticksSpent: number) => Math.round((ticksSpent * 10 * 1000) / tasks)
  console.log(
    JSON.stringify({
      rate: Math.round(tasks / seconds),
      databaseMsPer1000: per1000(postgresTicks() - database0),
      workerMsPer1000: per1000(ticks(worker.process.pid!) - worker0),
      walMB: Math.round(((await wal()) - wal0) / 1e6),
    }),
  )
} finally {
  await client.end()
  await worker.stop()
  await sim.stop()
  receiver.close()
  await admin.query(`DROP DATABASE ${name} WITH (FORCE)`)
  await admin.end()
}
