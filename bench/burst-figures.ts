import { spawn, type ChildProcess } from 'node:child_process'
import pg from 'pg'
import { createCarrierSimulator } from '../src/carriers/registry'
import { postgresTicks, ticks } from './cpu'
import { startService } from '../test/support/service-process'
import { simulatorEnv } from '../test/support/simulator-env'
import { newest, SCHEDULED } from './finished'
import { load } from './load'
import { type Row, fmt } from './report'

/**
 * The burst: one user whose callbacks all point at one receiving host (a process of
 * its own on loopback, answering 200 at once), 20,000 FedEx numbers that each change once at their
 * first fetch, the carrier's budget raised so that it is not the limit, everything else at its
 * defaults. Webhooks per second end to end (first subscribe acknowledged → last webhook received)
 * and the lag from each number's subscribe acknowledgement to its webhook, next to the receiver's
 * own ceiling.
 */

const CHANGES = 20_000

async function startReceiver(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/receiver.ts'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve((JSON.parse(d.toString()) as { port: number }).port)))
  return { child, url: `http://127.0.0.1:${port}` }
}

export async function burstFigures(
  kind: string,
  env: Record<string, string>,
  dbUrl: () => string,
  adminToken: string,
  row: Row,
  seconds: number,
): Promise<void> {
  const sim = createCarrierSimulator({ stepMs: 0 })
  await sim.start()
  const receiver = await startReceiver()
  const service = await startService({
    ...env,
    ROLE: 'all',
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    ...simulatorEnv(sim),
    FEDEX_REQUEST_BUDGET: '1000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    RATE_LIMIT_PER_TOKEN: '0',
    RATE_LIMIT_PER_ADDRESS: '0',
    ...(JSON.parse(process.env.BURST_ENV ?? '{}') as Record<string, string>),
  })
  try {
    const ceiling = await load({
      url: `${receiver.url}/hook`,
      method: 'POST',
      connections: 64,
      seconds: Math.min(seconds, 5),
      headers: { 'content-type': 'application/json' },
      body: () => '{}',
    })
    const user = (await (
      await fetch(`${service.baseUrl}/admin/api-users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: '{"name":"burst"}',
      })
    ).json()) as { data: { token: string } }
    const acked = new Map<string, number>()
    const cpuBefore = { service: ticks(service.process.pid!), database: postgresTicks(), receiver: ticks(receiver.child.pid!), bench: process.cpuUsage() }
    const prefix = `BURST${Date.now()}X`
    const started = Date.now()
    // Ten batches in flight, as a shop's import would send them.
    const batches = Array.from({ length: CHANGES / 100 }, (_, b) => Array.from({ length: 100 }, (_, i) => `${prefix}${b * 100 + i}`))
    const send = async (numbers: string[]) => {
      const res = await fetch(`${service.baseUrl}/openapi/tracking-subscriptions/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.data.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ items: numbers.map((trackingNumber) => ({ carrierCode: 'FEDEX', trackingNumber, callbackUrl: `${receiver.url}/hook` })) }),
      })
      if (!res.ok) throw new Error(`batch answered ${res.status}`)
      const at = Date.now()
      for (const n of numbers) acked.set(n, at)
    }
    for (let i = 0; i < batches.length; i += 10) await Promise.all(batches.slice(i, i + 10).map(send))
    const subscribed = Date.now()
    // Waited for through the receiver alone: counting the unfetched tasks in the database every
    // 100 ms (a scan of the table, 10-30 ms each under the burst) took a share of the two cores
    // from the service being measured. A number's webhook arrives after its fetch, and no number
    // is fetched twice within the burst (its carrier is polled every POLL_INTERVAL_SECONDS), so
    // the newest last_fetched_at, read once at the end, is when the last number was fetched.
    for (;;) {
      const { numbers } = (await (await fetch(`${receiver.url}/_count`)).json()) as { numbers: number }
      if (numbers >= CHANGES || Date.now() - started > 180_000) break
      await new Promise((r) => setTimeout(r, 100))
    }
    const benchCpu = process.cpuUsage(cpuBefore.bench)
    const cores = {
      service: (ticks(service.process.pid!) - cpuBefore.service) / 100,
      database: (postgresTicks() - cpuBefore.database) / 100,
      receiver: (ticks(receiver.child.pid!) - cpuBefore.receiver) / 100,
      bench: (benchCpu.user + benchCpu.system) / 1e6,
    }
    const stats = (await (await fetch(`${receiver.url}/_stats`)).json()) as { count: number; arrivals: Record<string, number> }
    const client = new pg.Client({ connectionString: dbUrl() })
    await client.connect()
    const { rows: fetchedRows } = await client.query<{ at: number | null }>(
      `SELECT ${newest('last_fetched_at')} FROM ${SCHEDULED} WHERE tracking_number LIKE $1`,
      [`${prefix}%`],
    )
    const fetched = fetchedRows[0]!.at ?? Number.NaN
    const lags = [...acked]
      .map(([n, at]) => (stats.arrivals[n] ?? Number.NaN) - at)
      .filter(Number.isFinite)
      .sort((a, b) => a - b)
    const last = Math.max(...Object.values(stats.arrivals))
    const rate = lags.length / ((last - started) / 1000)
    const pct = (p: number) => lags[Math.min(lags.length - 1, Math.floor(p * lags.length))]! / 1000
    row(
      kind,
      `burst of ${fmt(CHANGES)} changes to one host: webhooks/s end to end`,
      fmt(rate),
      fmt(ceiling.requestsPerSecond),
      `${(rate / ceiling.requestsPerSecond).toFixed(2)}×`,
      '≥ 1,500/s',
    )
    row(kind, '  lag, subscribe acknowledged → webhook received', `p50 ${pct(0.5).toFixed(1)} s, p99 ${pct(0.99).toFixed(1)} s`, '', '', 'p99 ≤ 15 s')
    // Where an attempt's time went: claimed → request sent, the request, answer → outcome recorded.
    const { rows: spent } = await client.query<{ wait: number; http: number; record: number }>(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM a.started_at - d.last_attempt_at) * 1000) AS wait,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY a.duration_ms) AS http,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM d.updated_at - a.started_at) * 1000 - a.duration_ms) AS record
         FROM deliveries d JOIN tracking_tasks t ON t.id = d.task_id JOIN delivery_attempts a ON a.delivery_id = d.id
        WHERE t.tracking_number LIKE $1`,
      [`${prefix}%`],
    )
    await client.end()
    row(
      kind,
      "  an attempt's time (p50): claimed → sent / the request / answer → recorded",
      `${spent[0]!.wait.toFixed(1)} / ${spent[0]!.http.toFixed(1)} / ${spent[0]!.record.toFixed(1)} ms`,
      '',
      '',
      '',
    )
    row(
      kind,
      '  subscribed / every number fetched / every webhook received, after the first subscribe',
      `${((subscribed - started) / 1000).toFixed(1)} s / ${((fetched - started) / 1000).toFixed(1)} s / ${((last - started) / 1000).toFixed(1)} s`,
      '',
      '',
      '',
    )
    // Where the two cores went, in CPU seconds from the first subscribe to the last webhook: the
    // bench's own process sends the batches and runs the carrier simulator.
    const perChange = (s: number) => `${((s * 1e6) / CHANGES).toFixed(0)} µs`
    row(
      kind,
      '  CPU a change: service / database / receiver / bench (batches and carrier simulator)',
      `${perChange(cores.service)} / ${perChange(cores.database)} / ${perChange(cores.receiver)} / ${perChange(cores.bench)}`,
      '',
      '',
      '',
    )
    if (lags.length < CHANGES) row(kind, '  (webhooks missing at the end)', fmt(CHANGES - lags.length), '', '', '0')
  } finally {
    await service.stop()
    receiver.child.kill()
    await sim.stop()
  }
}
