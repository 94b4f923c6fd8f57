import { spawn } from 'node:child_process'
import pg from 'pg'
import { carrierOf, createCarrierSimulator } from '../src/carriers/registry'
import { startService, type ServiceProcess } from '../test/support/service-process'
import { simulatorEnv } from '../test/support/simulator-env'
import { insertInactiveTasks, makeDue, SCHEDULED } from './finished'
import { startReceiver } from './loopback-receiver'
import { warmLoad } from './load'
import { type FigureContext, type Row, fmt } from './report'
import { EVERY_CARRIER_UNBOUNDED } from './worker-settings'

/**
 * The carriers' figures. Per carrier: numbers fetched and applied per second by one worker process
 * (FedEx at 30 a request, La Poste and GLS at 10, UPS, USPS, DHL and Canada Post at 1), beside that
 * carrier's fetch ceiling. A carrier outage
 * (PostgreSQL): with `outageTasks` FedEx tasks due and FedEx refusing connections, the rows the
 * worker writes for it per second once its circuit is open, and the API's query throughput beside
 * the same data served by ROLE=api; then FedEx comes back and every due task must be fetched
 * within (due tasks ÷ FedEx's throughput) + 60 s.
 */

/** A carrier's (or several carriers') adapters alone against the simulator, in a child process (bench/fetch-ceiling.ts). */
export async function fetchCeiling(sim: ReturnType<typeof createCarrierSimulator>, codes: string[], seconds: number): Promise<number> {
  const urls = Object.fromEntries(codes.map((code) => [carrierOf(code)!.env.apiUrl.variable, sim.urlOf(carrierOf(code)!.simulator)]))
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/fetch-ceiling.ts'], {
    env: { ...process.env, ...urls, CARRIERS: codes.join(','), SECONDS: String(Math.min(seconds, 5)) },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  await new Promise((resolve) => child.on('exit', resolve))
  return (JSON.parse(output) as { numbersPerSecond: number }).numbersPerSecond
}

async function until(client: pg.Client, sql: string, params: unknown[]): Promise<void> {
  for (;;) {
    if ((await client.query<{ done: boolean }>(sql, params)).rows[0]!.done) return
    await new Promise((r) => setTimeout(r, 50))
  }
}

export async function carrierFigures(options: FigureContext & { outageTasks: number }): Promise<void> {
  const { kind, env, dbUrl, adminToken, row, seconds } = options
  const sim = createCarrierSimulator({ stepMs: 0 })
  await sim.start()
  const receiver = await startReceiver()
  const budgets = { ...EVERY_CARRIER_UNBOUNDED, REFRESH_CLAIM_LIMIT: '1000' }
  const common = {
    ...env,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    ...simulatorEnv(sim),
    ...budgets,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    RATE_LIMIT_PER_TOKEN: '0',
    RATE_LIMIT_PER_ADDRESS: '0',
  }
  let fedexRate = 0
  let userId = 0
  // Per carrier, one at a time: its tasks made due at once, fetched and applied by one worker
  // (which has migrated the database, and started the embedded one, by the time it answers).
  const worker = await startService({ ...common, ROLE: kind === 'embedded' ? 'all' : 'worker' })
  const client = new pg.Client({ connectionString: dbUrl() })
  // The run's end drops the database under this connection: that is not this figure's error.
  client.on('error', () => {})
  await client.connect()
  try {
    userId = (
      await client.query<{ id: number }>(
        `INSERT INTO api_users (name, webhook_secret) VALUES ('carriers', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') RETURNING id`,
      )
    ).rows[0]!.id
    try {
      for (const [code, tasks] of [
        ['FEDEX', 6000],
        ['UPS', 3000],
        ['USPS', 3000],
        ['DHL', 3000],
        ['LAPOSTE', 3000],
        ['GLS', 3000],
        ['CANADAPOST', 3000],
      ] as const) {
        const carrier = carrierOf(code)!
        await insertInactiveTasks(client, { userId, carrierCode: code, prefix: `DLR${code}`, callbackUrl: receiver.url, count: tasks })
        const ceiling = await fetchCeiling(sim, [code], seconds)
        const started = Date.now()
        await makeDue(client, 'user_id = $1 AND carrier_code = $2', [userId, code])
        await until(client, `SELECT count(*) FILTER (WHERE last_fetched_at IS NULL) = 0 AS done FROM ${SCHEDULED} WHERE user_id = $1 AND carrier_code = $2`, [
          userId,
          code,
        ])
        const rate = tasks / ((Date.now() - started) / 1000)
        if (code === 'FEDEX') fedexRate = rate
        row(
          kind,
          `refresh ${carrier.name} alone: numbers /s (${carrier.numbersPerRequest} a request)`,
          fmt(rate),
          fmt(ceiling),
          `${(rate / ceiling).toFixed(2)}×`,
          '',
        )
        await until(client, `SELECT count(*) FILTER (WHERE status NOT IN ('success', 'failed')) = 0 AS done FROM deliveries WHERE user_id = $1`, [userId])
      }
    } finally {
      await worker.stop()
    }
    if (kind === 'postgres') await outage({ ...options, client, common, userId, receiverUrl: receiver.url, fedexRate })
  } finally {
    await client.end()
    receiver.close()
    await sim.stop()
  }
}

async function outage(o: {
  kind: string
  row: Row
  seconds: number
  outageTasks: number
  adminToken: string
  client: pg.Client
  common: Record<string, string>
  userId: number
  receiverUrl: string
  fedexRate: number
}): Promise<void> {
  const { kind, row, seconds, client, userId, outageTasks } = o
  const down = createCarrierSimulator({ stepMs: 0, down: [carrierOf('FEDEX')!.simulator.path] })
  await down.start()
  const env = { ...o.common, ...simulatorEnv(down) }
  try {
    const { rows } = await client.query<{ min: string; max: string }>(
      `WITH t AS (INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url)
                  SELECT $1, 'FEDEX', 'DLO' || g, $2 FROM generate_series(1, $3::int) g RETURNING id)
       SELECT min(id), max(id) FROM t`,
      [userId, o.receiverUrl, outageTasks],
    )
    await client.query('VACUUM ANALYZE tracking_tasks, task_schedule')
    const [min, max] = [Number(rows[0]!.min), Number(rows[0]!.max)]
    const query = async (service: ServiceProcess) => {
      const res = await fetch(`${service.baseUrl}/admin/api-users/${userId}/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${o.adminToken}`, 'content-type': 'application/json' },
        body: '{}',
      })
      const token = ((await res.json()) as { data: { token: string } }).data.token
      const randomId = () => min + Math.floor(Math.random() * (max - min + 1))
      return warmLoad({
        url: service.baseUrl,
        connections: 50,
        seconds,
        headers: { authorization: `Bearer ${token}` },
        path: () => `/openapi/tracking-subscriptions?taskId=${randomId()}`,
      })
    }

    // The same data served by an API process alone, before and after the outage's measure (the
    // mean is the ceiling, so that the order of the runs does not decide the ratio).
    const apiAlone = async () => {
      const api = await startService({ ...env, ROLE: 'api' })
      return query(api).finally(() => api.stop())
    }
    const before = await apiAlone()

    // API and worker in one process, FedEx refusing every connection.
    const xidNow = async () => (await client.query<{ xid: string }>(`SELECT (txid_current() % 4294967296)::text AS xid`)).rows[0]!.xid
    const writtenSince = async (xid: string) =>
      (
        await client.query<{ written: number }>(
          `SELECT (SELECT count(*)::int FROM tracking_tasks WHERE carrier_code = 'FEDEX' AND user_id = $1 AND xmin::text::bigint >= $2::bigint)
                + (SELECT count(*)::int FROM ${SCHEDULED} WHERE carrier_code = 'FEDEX' AND user_id = $1 AND schedule_xmin::text::bigint >= $2::bigint) AS written`,
          [userId, xid],
        )
      ).rows[0]!.written
    const leased = async () =>
      (
        await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM refresh_claims c CROSS JOIN unnest(c.task_ids) AS h (task_id) JOIN tracking_tasks t ON t.id = h.task_id
            WHERE c.carrier_code = 'FEDEX' AND c.lease_until > now() AND t.user_id = $1`,
          [userId],
        )
      ).rows[0]!.n
    const beforeStart = await xidNow()
    const all = await startService({ ...env, ROLE: 'all' })
    const circuitOf = async (service: ServiceProcess) =>
      ((await (await fetch(`${service.baseUrl}/readyz`)).json()) as { data: { carriers: Record<string, { state: string }> } }).data.carriers.FEDEX!.state
    const openedFrom = Date.now()
    let during: Awaited<ReturnType<typeof query>>
    try {
      while ((await circuitOf(all)) !== 'open') await new Promise((r) => setTimeout(r, 100))
      const openAfter = Date.now() - openedFrom
      // The round under way when the carrier went down wrote its requests' tasks once (their
      // failures): that is the outage's start, reported apart. The window starts once no task is
      // held by it (the probes' 30 tasks come and go within milliseconds).
      while ((await leased()) > 30) await new Promise((r) => setTimeout(r, 50))
      const atStart = await writtenSince(beforeStart)
      const window = Math.max(seconds, 30)
      const xid = await xidNow()
      const windowFrom = Date.now()
      during = await query(all)
      const left = window * 1000 - (Date.now() - windowFrom)
      if (left > 0) await new Promise((r) => setTimeout(r, left))
      const writesPerSecond = (await writtenSince(xid)) / ((Date.now() - windowFrom) / 1000)
      row(
        kind,
        `FedEx down, ${fmt(outageTasks)} due: task rows written once by the round under way when it went down (claimed, then failed)`,
        fmt(atStart),
        '',
        '',
        '',
      )
      row(
        kind,
        `FedEx down: its task rows written /s over the next ${window} s, the circuit open (opened after ${fmt(openAfter)} ms)`,
        writesPerSecond.toFixed(1),
        '',
        '',
        '≤ 10/s',
      )
    } finally {
      await all.stop()
    }
    const after = await apiAlone()
    const alone = (before.requestsPerSecond + after.requestsPerSecond) / 2
    row(
      kind,
      'FedEx down: query by taskId, ROLE=all vs ROLE=api (before and after) on the same data',
      `${fmt(during.requestsPerSecond)} req/s, p99 ${during.p99Ms} ms`,
      `${fmt(before.requestsPerSecond)} / ${fmt(after.requestsPerSecond)} req/s, p99 ${before.p99Ms} / ${after.p99Ms} ms`,
      `${(during.requestsPerSecond / alone).toFixed(2)}×`,
      '≥ 0.95×',
    )

    // FedEx comes back while a worker's circuit is open: every due task fetched within
    // (due ÷ FedEx's throughput) + 60 s.
    const worker = await startService({ ...env, ROLE: 'all' })
    try {
      while ((await circuitOf(worker)) !== 'open') await new Promise((r) => setTimeout(r, 100))
      down.setDown(carrierOf('FEDEX')!.simulator, false)
      const backFrom = Date.now()
      await until(client, `SELECT count(*) = 0 AS done FROM ${SCHEDULED} WHERE user_id = $1 AND carrier_code = 'FEDEX' AND last_fetched_at IS NULL`, [userId])
      const recovery = (Date.now() - backFrom) / 1000
      const allowed = outageTasks / o.fedexRate + 60
      row(
        kind,
        `FedEx back: ${fmt(outageTasks)} due tasks all fetched`,
        `${fmt(recovery)} s`,
        `${fmt(allowed)} s allowed`,
        `${(recovery / allowed).toFixed(2)}×`,
        '≤ due ÷ throughput + 60 s',
      )
    } finally {
      await worker.stop()
    }
  } finally {
    await down.stop()
  }
}
