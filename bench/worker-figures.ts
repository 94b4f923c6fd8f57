import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import pg from 'pg'
import { createCarrierSimulator } from '../src/carriers/registry'
import { startService } from '../test/support/service-process'
import { simulatorEnv } from '../test/support/simulator-env'
import { fetchCeiling } from './carrier-figures'
import { endpointFigures } from './endpoint-figures'
import { finishedAt, makeDue, makeDueInTurn, newest, SCHEDULED } from './finished'
import { load } from './load'
import { fmt, type FigureContext } from './report'
import { REFRESH_FIGURE_WORKER_ENV } from './worker-settings'

const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

/**
 * The workers' figures (npm run bench): the refresh through the simulator against the adapters
 * fetching alone, the status change to its first attempt (a burst, a steady stream), webhooks
 * delivered by one worker process against the receiver alone, and the endpoints' figures.
 */
export async function workerFigures({ kind, env, dbUrl, adminToken, row, seconds }: FigureContext) {
  const sim = createCarrierSimulator({ stepMs: 0 })
  await sim.start()
  let received = 0
  const receiver = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      received++
      res.writeHead(200).end('ok')
    })
  })
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`
  const worker = await startService({
    ...env,
    ROLE: kind === 'embedded' ? 'all' : 'worker',
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    ...simulatorEnv(sim),
    ...REFRESH_FIGURE_WORKER_ENV,
  })
  const pid = worker.process.pid!
  const idle = rss(pid)
  const client = new pg.Client({ connectionString: dbUrl() })
  await client.connect()
  try {
    const N = 5000
    const [{ id: userId }] = (
      await client.query<{ id: number }>(
        `INSERT INTO api_users (name, webhook_secret) VALUES ('workers', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') RETURNING id`,
      )
    ).rows as [{ id: number }]
    await client.query(
      `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, inactive_since)
       SELECT $1, CASE WHEN g % 2 = 0 THEN 'FEDEX' ELSE 'UPARCEL' END, 'DLB' || g, $2, now() FROM generate_series(1, $3::int) g`,
      [userId, receiverUrl, N],
    )
    const waitFor = finishedAt(client)

    // 5. Refresh: numbers fetched and applied per second through the simulator. The ceiling is
    // measured first, while the worker is idle.
    const ceiling = await fetchCeiling(sim, ['FEDEX', 'UPARCEL'], seconds)
    let started = Date.now()
    await makeDue(client, 'user_id = $1', [userId])
    const refreshed = await waitFor(
      `SELECT count(*) FILTER (WHERE last_fetched_at IS NULL) = 0 AS done, ${newest('last_fetched_at')} FROM ${SCHEDULED} WHERE user_id = $1`,
      [userId],
    )
    const refreshRate = N / ((refreshed - started) / 1000)
    row(kind, 'refresh: numbers fetched and applied /s', fmt(refreshRate), fmt(ceiling), `${(refreshRate / ceiling).toFixed(2)}×`, '≥ 1,000/s')

    // 4b. Status change → first attempt: over the burst the refresh just made (5,000 changes
    // at once, so mostly queueing), and over a steady stream of 200 changes a second.
    await waitFor(`SELECT count(*) FILTER (WHERE status <> 'success') = 0 AS done FROM deliveries`)
    const latencyOf = async (since: Date, user = userId) =>
      (
        await client.query<{ p50: number; p99: number }>(
          `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99
             FROM (SELECT EXTRACT(EPOCH FROM a.started_at - d.created_at) * 1000 AS ms
                     FROM deliveries d JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt_number = 1
                    WHERE d.created_at >= $1 AND d.user_id = $2) x`,
          [since, user],
        )
      ).rows[0]!
    const burst = await latencyOf(new Date(0))
    row(kind, 'status change → first attempt, burst of 5,000', `p50 ${fmt(burst.p50)} ms, p99 ${fmt(burst.p99)} ms`, '', '', '')
    const STEADY = 1000
    const steadyFrom = new Date()
    await client.query(
      `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, inactive_since)
       SELECT $1, CASE WHEN g % 2 = 0 THEN 'FEDEX' ELSE 'UPARCEL' END, 'DLS' || g, $2, now() FROM generate_series(1, $3::int) g`,
      [userId, receiverUrl, STEADY],
    )
    await makeDueInTurn(client, userId, 'DLS', 200)
    await waitFor(
      `SELECT count(*) = $2 AS done FROM deliveries d JOIN tracking_tasks t ON t.id = d.task_id WHERE t.user_id = $1 AND t.tracking_number LIKE 'DLS%' AND d.status = 'success'`,
      [userId, STEADY],
    )
    const steady = await latencyOf(steadyFrom)
    row(kind, 'status change → first attempt, 200 changes/s', `p50 ${fmt(steady.p50)} ms, p99 ${fmt(steady.p99)} ms`, '', '', 'p50 < 200 ms')

    // 4. Webhooks: deliveries per second by one worker process.
    const payload = readFileSync(new URL('../test/fixtures/carriers/uparcel/tracking-answer.json', import.meta.url), 'utf8')
    await client.query(
      `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, next_attempt_at)
       SELECT t.id, t.user_id, 'msg_bench' || lpad(g::text, 8, '0'), $2, now() + interval '1 hour'
         FROM generate_series(1, $3::int) g JOIN tracking_tasks t ON t.user_id = $1 AND t.tracking_number = 'DLB' || g`,
      [userId, payload, N],
    )
    const before = received
    started = Date.now()
    await client.query(`UPDATE deliveries SET next_attempt_at = now() WHERE webhook_id LIKE 'msg_bench%'`)
    const delivered = await waitFor(
      `SELECT count(*) FILTER (WHERE status <> 'success') = 0 AS done, ${newest('updated_at')} FROM deliveries WHERE webhook_id LIKE 'msg_bench%'`,
    )
    const deliveryRate = N / ((delivered - started) / 1000)
    const receiverCeiling = await load({
      url: receiverUrl,
      method: 'POST',
      connections: 64,
      seconds: Math.min(seconds, 5),
      headers: { 'content-type': 'application/json' },
      body: () => payload,
    })
    row(
      kind,
      'webhooks delivered /s (one worker process)',
      fmt(deliveryRate),
      fmt(receiverCeiling.requestsPerSecond),
      `${(deliveryRate / receiverCeiling.requestsPerSecond).toFixed(2)}×`,
      '≥ 1,000/s',
    )
    if (received - before < N) console.log(`  (receiver saw ${received - before} of ${N})`)
    await endpointFigures({ kind, client, receiverBase: receiverUrl, plainRefreshRate: refreshRate, row, waitFor, latencyOf, payload })
    row(kind, 'worker process RSS idle / after load', `${fmt(idle)} / ${fmt(rss(pid))} MiB`, '', '', '')
  } finally {
    await client.end()
    await worker.stop()
    receiver.close()
    await sim.stop()
  }
}
