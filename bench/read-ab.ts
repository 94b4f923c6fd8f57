import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { remakePredictionsAfter } from '../src/db/prediction-writes'
import { createApiUser } from './api-user'
import { checkoutOf, ROOT } from './checkout'
import { warmLoad } from './load'
import { fmt } from './report'
import { seed } from './seed'

/**
 * `npm run bench:read-ab -- --against <commit> [--pairs 3] [--seconds 5] [--tasks 200000]`: the
 * full task and the list's first page of this checkout against an earlier commit's. Each side runs
 * its own checkout's service (the API only) on its own database of the same tasks: the bench's
 * mature account (seed.ts) with every task moved into transit between two states, the worst case
 * for the prediction: on a side that predicts, every task has one (lanes of 25 deliveries, made by
 * the statement the refresh's prediction uses). The sides are loaded in turn, this then that,
 * `--pairs` times, so that both see the same host. Loopback only. How "the full task and the list
 * as fast as before" is measured (docs/performance.md).
 */

const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith('--') ? [[a.slice(2), all[i + 1] ?? '']] : [])))
const against = args.get('against')
if (!against) throw new Error('usage: npm run bench:read-ab -- --against <commit> [--pairs 3] [--seconds 5] [--tasks 200000]')
const pairs = Number(args.get('pairs') ?? 3)
const seconds = Number(args.get('seconds') ?? 5)
const tasks = Number(args.get('tasks') ?? 200_000)
const server = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432'
const ADMIN_TOKEN = 'read-ab-admin-token-0123456789'

interface ServiceProcess {
  baseUrl: string
  stop(): Promise<unknown>
}
interface Side {
  label: string
  service: ServiceProcess
  token: string
  ids: [number, number]
}

const { commit, dir: earlier } = checkoutOf(against)
const admin = new pg.Client({ connectionString: `${server}/postgres` })
await admin.connect()

const databaseOf = (label: string) => `bench_read_ab_${label.replace(/\W/g, '_')}`

/** A side: its database made afresh, its checkout's service started on it, its tasks seeded. */
async function sideOf(label: string, checkout: string): Promise<Side> {
  const database = databaseOf(label)
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  await admin.query(`CREATE DATABASE ${database}`)
  const url = `${server}/${database}`
  const { startService } = (await import(pathToFileURL(join(checkout, 'test/support/service-process.ts')).href)) as {
    startService(env: Record<string, string>): Promise<ServiceProcess>
  }
  const service = await startService({
    DATABASE_URL: url,
    ADMIN_TOKEN,
    ROLE: 'api',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_TOKEN: '0',
    RATE_LIMIT_PER_ADDRESS: '0',
  })
  const { userId, token } = await createApiUser(service.baseUrl, ADMIN_TOKEN, 'read-ab')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await seed(client, userId, tasks, 'R-')
    await client.query(
      `UPDATE tracking_tasks
          SET standard_status = 'in_transit', milestone = 'in_transit', inactive_since = NULL,
              origin_address = '{"country":"US","state":"TN","city":"MEMPHIS","postalCode":"38118","address":""}',
              destination_address = '{"country":"US","state":"NY","city":"NEW YORK","postalCode":"10001","address":""}'`,
    )
    const predicts = (await client.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'tracking_tasks' AND column_name = 'prediction'`))
      .rowCount
    if (predicts) {
      await client.query(`UPDATE tracking_tasks SET transit_started_at = created_at + interval '1 hour'`)
      await client.query(
        `INSERT INTO transit_lanes (scope_user_id, carrier_code, origin_country, origin_state, destination_country, destination_state,
                                    deliveries, p10_hours, median_hours, p90_hours)
         SELECT 0, c, 'US', 'TN', 'US', 'NY', 25, 30, 52, 90 FROM unnest(ARRAY['FEDEX', 'UPARCEL']) c`,
      )
      // A Queryable over the bare client: pg's own query takes a callback where ours takes a statement name.
      const queryable = { query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => client.query<R>(text, values) }
      for (let last: number | null = 0; last !== null;) last = await remakePredictionsAfter(queryable, last)
    }
    // Compacted, so that the sides' tables differ by their columns, not by what the updates above left.
    await client.query('VACUUM (FULL, ANALYZE) tracking_tasks')
    const { rows } = await client.query<{ min: string; max: string }>('SELECT min(id), max(id) FROM tracking_tasks')
    console.log(`${label}: ${fmt(tasks)} tasks seeded${predicts ? ', each with a prediction' : ''}`)
    return { label, service, token, ids: [Number(rows[0]!.min), Number(rows[0]!.max)] }
  } finally {
    await client.end()
  }
}

const sides = [await sideOf('now', ROOT), await sideOf(commit, earlier)]
const figures = [
  {
    label: 'full task, 50 connections',
    connections: 50,
    path: (s: Side) => `/openapi/tracking-subscriptions/${s.ids[0] + Math.floor(Math.random() * (s.ids[1] - s.ids[0] + 1))}`,
  },
  { label: 'list, first page (20), 50 connections', connections: 50, path: () => '/openapi/tracking-subscriptions/list' },
]
const results = new Map<string, { rate: number; p99: number }[]>()
try {
  for (let i = 0; i < pairs; i++) {
    for (const figure of figures) {
      for (const side of sides) {
        const result = await warmLoad({
          url: side.service.baseUrl,
          connections: figure.connections,
          seconds,
          headers: { authorization: `Bearer ${side.token}` },
          path: () => figure.path(side),
        })
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${side.label} ${figure.label}: ${result.non2xx} non-2xx, ${result.errors} errors`)
        const key = `${figure.label}|${side.label}`
        results.set(key, [...(results.get(key) ?? []), { rate: result.requestsPerSecond, p99: result.p99Ms }])
      }
      const [a, b] = sides.map((s) => results.get(`${figure.label}|${s.label}`)!.at(-1)!)
      console.log(`pair ${i + 1}, ${figure.label}: now ${fmt(a!.rate)}/s, ${commit} ${fmt(b!.rate)}/s (${(a!.rate / b!.rate).toFixed(2)}×)`)
    }
  }
} finally {
  for (const side of sides) await side.service.stop()
  for (const side of sides) await admin.query(`DROP DATABASE IF EXISTS ${databaseOf(side.label)} WITH (FORCE)`)
  await admin.end()
}

const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length
console.log(`\n| figure | this checkout, req/s (p99) | ${commit}, req/s (p99) | ratio of the means |\n|---|---|---|---|`)
for (const figure of figures) {
  const [now, before] = sides.map((s) => results.get(`${figure.label}|${s.label}`)!)
  const cell = (rs: { rate: number; p99: number }[]) => `${rs.map((r) => `${fmt(r.rate)} (${r.p99} ms)`).join(', ')}`
  console.log(`| ${figure.label} | ${cell(now!)} | ${cell(before!)} | ${(mean(now!.map((r) => r.rate)) / mean(before!.map((r) => r.rate))).toFixed(2)}× |`)
}
