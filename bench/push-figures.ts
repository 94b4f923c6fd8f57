import pg from 'pg'
import { Pool } from 'undici'
import { createCarrierSimulator } from '../src/carriers/registry'
import { TASKS_DUE } from '../src/db/notifier'
import { pushSignature } from '../src/carriers/seventeentrack/seventeentrack.signature'
import { startService } from '../test/support/service-process'
import { simulatorEnv } from '../test/support/simulator-env'
import { createApiUser } from './api-user'
import { finishedAt, insertInactiveTasks, makeDue } from './finished'
import { type FigureContext, fmt } from './report'
import { walBetween } from './write-costs'
import { royalMailPush } from '../test/support/seventeentrack-push'

/**
 * Pushes against fetches (npm run bench; --pushes-only x alone), for carriers served through
 * 17TRACK, one service process (ROLE=all) reading the bench's simulator as its live 17TRACK:
 *
 * - changes a second: N Royal Mail tasks, each changed once by a fetch (the simulator's stories
 *   moved a stage, the tasks made due; gettrackinfo, 40 a request), beside N others each changed
 *   once by a push (the same news, signed and POSTed by the bench to /inbound/17track, 50 at once),
 *   from the first request to the last task changed: target pushes ≥ 1× fetches;
 * - the WAL of a push that changes nothing (another body with the same news: stored, then applied
 *   as nothing new) beside a fetch that finds nothing new, for the same tasks.
 */

const N = 2000
const KEY = 'simulated-apiKey'
const CONCURRENCY = 50
const STEP = 60_000

/** A push of a Royal Mail number (5 characters at least: 17TRACK refuses shorter ones) with two scans, label then pickup; `tag` varies the bytes only. */
const pushBody = (number: string, tag: string) =>
  royalMailPush(
    number,
    'InTransit_PickedUp',
    [
      { at: '2026-11-20T09:00:00Z', description: 'Item collected', stage: 'PickedUp' },
      { at: '2026-11-19T18:00:00Z', description: 'Label created', stage: 'InfoReceived' },
    ],
    tag,
  )

/** POSTs each body, signed, `CONCURRENCY` at once over kept-alive connections (undici's pool: fetch cost the bench twice the CPU). */
async function postAll(baseUrl: string, bodies: string[]): Promise<void> {
  const pool = new Pool(baseUrl, { connections: CONCURRENCY })
  let next = 0
  try {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]!
          const res = await pool.request({
            path: '/inbound/17track',
            method: 'POST',
            headers: { 'content-type': 'application/json', sign: pushSignature(Buffer.from(body), KEY) },
            body,
          })
          await res.body.arrayBuffer()
          if (res.statusCode !== 200) throw new Error(`push: HTTP ${res.statusCode}`)
        }
      }),
    )
  } finally {
    await pool.close()
  }
}

const lsn = async (client: pg.Client) => (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn

export async function pushFigures({ kind, env, dbUrl, adminToken, row }: FigureContext): Promise<void> {
  let clock = Date.parse('2026-11-19T18:00:00Z')
  const sim = createCarrierSimulator({ stepMs: STEP, now: () => clock })
  await sim.start()
  const service = await startService({
    ...env,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    ...simulatorEnv(sim),
    SEVENTEENTRACK_REQUEST_BUDGET: '1000',
    RATE_LIMIT_PER_TOKEN: '0',
    RATE_LIMIT_PER_ADDRESS: '0',
  })
  const client = new pg.Client({ connectionString: dbUrl() })
  await client.connect()
  const done = finishedAt(client)
  try {
    const { userId } = await createApiUser(service.baseUrl, adminToken, 'pushes')
    const callbackUrl = 'https://shop.example/hook'
    for (const prefix of ['RMPF', 'RMPP']) await insertInactiveTasks(client, { userId, carrierCode: 'ROYALMAIL', prefix, callbackUrl, count: N })
    // Registered (the first reads find nothing: 17TRACK has nothing before the registration), then
    // the fetch figure's tasks read once at their story's first stage; left alone from there.
    await makeDue(client, `user_id = $1 AND carrier_code = 'ROYALMAIL'`, [userId])
    await done(`SELECT count(*) = $1::int * 2 AS done FROM route_registrations WHERE state = 'registered' AND tracking_number ~ '^RMP[FP]'`, [N])
    const park = () => client.query(`UPDATE task_schedule SET next_refresh_at = now() + interval '1 day' WHERE carrier_code = 'ROYALMAIL'`)
    const eventsOf = (prefix: string, count: number) =>
      done(
        `SELECT count(*) = $3::int AS done FROM tracking_tasks t
          WHERE t.user_id = $1 AND t.tracking_number LIKE $2 || '%'
            AND (SELECT count(*) FROM tracking_events e WHERE e.task_id = t.id) >= $4`,
        [userId, prefix, N, count],
      )

    await makeDue(client, `user_id = $1 AND tracking_number LIKE 'RMPF%'`, [userId])
    await eventsOf('RMPF', 1)
    await park()

    // Changes by fetch: the stories move a stage; the PF tasks are made due.
    clock += STEP
    let started = Date.now()
    await makeDue(client, `user_id = $1 AND tracking_number LIKE 'RMPF%'`, [userId])
    // Woken as a subscribe or a push wakes it, not at its next poll.
    await client.query(`NOTIFY ${TASKS_DUE}`)
    const fetchRate = N / ((Math.max(await eventsOf('RMPF', 2), started) - started) / 1000)

    // The same changes by push.
    const pushes = Array.from({ length: N }, (_, i) => pushBody(`RMPP${i + 1}`, ''))
    started = Date.now()
    await postAll(service.baseUrl, pushes)
    const storedRate = N / ((Date.now() - started) / 1000)
    const pushRate = N / ((Math.max(await eventsOf('RMPP', 2), started) - started) / 1000)
    row(kind, '17TRACK: pushes a second stored by the gateway (each answered once committed), 50 at once', fmt(storedRate), '', '', '')
    row(
      kind,
      `17TRACK: changes a second by push (${fmt(N)} pushes, 50 at once), beside the same by fetch`,
      fmt(pushRate),
      fmt(fetchRate),
      `${(pushRate / fetchRate).toFixed(2)}×`,
      '≥ 1×',
    )

    // No-change fetch: the PF tasks read again at the same stage.
    await park()
    await client.query('CHECKPOINT')
    let before = await lsn(client)
    await client.query(
      `UPDATE task_schedule SET next_refresh_at = now() WHERE task_id IN (SELECT id FROM tracking_tasks WHERE user_id = $1 AND tracking_number LIKE 'RMPF%')`,
      [userId],
    )
    await done(
      `SELECT count(*) = 0 AS done FROM task_schedule s JOIN tracking_tasks t ON t.id = s.task_id
        WHERE t.user_id = $1 AND t.tracking_number LIKE 'RMPF%' AND s.next_refresh_at <= now()`,
      [userId],
    )
    const fetchWal = (await walBetween(client, before, await lsn(client))) / N
    // No-change push: the same news in other bytes.
    await client.query('CHECKPOINT')
    before = await lsn(client)
    await postAll(
      service.baseUrl,
      pushes.map((_, i) => pushBody(`RMPP${i + 1}`, 'again')),
    )
    await done(`SELECT count(*) = 0 AS done FROM inbound_pushes WHERE applied_at IS NULL`)
    const pushWal = (await walBetween(client, before, await lsn(client))) / N
    row(
      kind,
      '17TRACK: WAL of a push that changes nothing (stored, applied as nothing new), beside a fetch that finds nothing new',
      `${fmt(pushWal)} B`,
      `${fmt(fetchWal)} B`,
      `${(pushWal / fetchWal).toFixed(2)}×`,
      '',
    )
  } finally {
    await client.end()
    await service.stop()
    await sim.stop()
  }
}
