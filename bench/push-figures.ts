import pg from 'pg'
import { Pool } from 'undici'
import { createCarrierSimulator } from '../src/carriers/registry'
import { TASKS_DUE } from '../src/db/notifier'
import { pushSignature } from '../src/carriers/seventeentrack/seventeentrack.signature'
import { startService } from '../test/support/service-process'
import { simulatorEnv } from '../test/support/simulator-env'
import { createApiUser } from './api-user'
import { postgresTicks, ticks } from './cpu'
import { finishedAt, insertInactiveTasks, makeDue } from './finished'
import { type FigureContext, fmt } from './report'
import { walBetween } from './write-costs'
import { royalMailPush } from '../test/support/seventeentrack-push'

/**
 * Pushes against fetches (npm run bench; --pushes-only x alone), for carriers served through
 * 17TRACK, one service process (ROLE=all) reading the bench's simulator as its live 17TRACK:
 *
 * - changes a second: groups of N Royal Mail tasks, each task changed once by a fetch (the
 *   simulator's stories moved a stage, the tasks made due; gettrackinfo, 40 a request) or once by
 *   a push (the same news, signed and POSTed by the bench to /inbound/17track, 50 at once), from
 *   the first request to the last task changed; PAIRS pairs of a fetch group and a push group,
 *   in the order fetch, push, push, fetch…, each group warmed alike beforehand (read or pushed once
 *   at its story's first stage); the median of the pairs' ratios, target pushes ≥ 1× fetches; and
 *   the CPU a change costs the service and PostgreSQL on each side (the sender's own, the bench's,
 *   shares the same two cores);
 * - the WAL of a push that changes nothing (another body with the same news: stored, then applied
 *   as nothing new) beside a fetch that finds nothing new, for the same tasks.
 */

const N = 2000
const PAIRS = 3
/** The simulator's clock at the stories' first stage (the label); a STEP later, the second (the pickup). */
const FIRST_STAGE = Date.parse('2026-11-19T18:00:00Z')
const KEY = 'simulated-apiKey'
const CONCURRENCY = 50
const STEP = 60_000

const LABEL = { at: '2026-11-19T18:00:00Z', description: 'Label created', stage: 'InfoReceived' }
const PICKUP = { at: '2026-11-20T09:00:00Z', description: 'Item collected', stage: 'PickedUp' }

/**
 * A push of a Royal Mail number (5 characters at least: 17TRACK refuses shorter ones) at its
 * first stage (the label) or its second (label, then pickup); `tag` varies the bytes only.
 */
const pushBody = (number: string, stage: 1 | 2, tag = '') =>
  stage === 1 ? royalMailPush(number, 'InfoReceived', [LABEL], tag) : royalMailPush(number, 'InTransit_PickedUp', [PICKUP, LABEL], tag)

/** POSTs each body, signed, `CONCURRENCY` at once over kept-alive connections (undici's pool: fetch cost the bench twice the CPU). */
async function postAll(baseUrl: string, texts: string[]): Promise<void> {
  const bodies = texts.map((text) => {
    const body = Buffer.from(text)
    return { body, sign: pushSignature(body, KEY) }
  })
  const pool = new Pool(baseUrl, { connections: CONCURRENCY })
  let next = 0
  try {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < bodies.length) {
          const { body, sign } = bodies[next++]!
          const res = await pool.request({
            path: '/inbound/17track',
            method: 'POST',
            headers: { 'content-type': 'application/json', sign },
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
  let clock = FIRST_STAGE
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
  // Fetch groups RMF1X…, push groups RMP1X…: numbers RMF1X1, RMF1X2, …
  const fetchGroups = Array.from({ length: PAIRS }, (_, i) => `RMF${i + 1}X`)
  const pushGroups = Array.from({ length: PAIRS }, (_, i) => `RMP${i + 1}X`)
  const numbersOf = (group: string) => Array.from({ length: N }, (_, i) => `${group}${i + 1}`)
  try {
    const { userId } = await createApiUser(service.baseUrl, adminToken, 'pushes')
    const callbackUrl = 'https://shop.example/hook'
    for (const prefix of [...fetchGroups, ...pushGroups]) await insertInactiveTasks(client, { userId, carrierCode: 'ROYALMAIL', prefix, callbackUrl, count: N })
    // Registered (the first reads find nothing: 17TRACK has nothing before the registration).
    await makeDue(client, `user_id = $1 AND carrier_code = 'ROYALMAIL'`, [userId])
    await done(`SELECT count(*) = $1::int AS done FROM route_registrations WHERE state = 'registered' AND tracking_number ~ '^RM[FP]'`, [N * PAIRS * 2])
    const park = () => client.query(`UPDATE task_schedule SET next_refresh_at = now() + interval '1 day' WHERE carrier_code = 'ROYALMAIL'`)
    const eventsOf = (prefix: string, count: number) =>
      done(
        `SELECT count(*) = $3::int AS done FROM tracking_tasks t
          WHERE t.user_id = $1 AND t.tracking_number LIKE $2 || '%'
            AND (SELECT count(*) FROM tracking_events e WHERE e.task_id = t.id) >= $4`,
        [userId, prefix, N, count],
      )
    const fetchGroup = async (group: string) => {
      await makeDue(client, `user_id = $1 AND tracking_number LIKE $2 || '%'`, [userId, group])
      // Woken as a subscribe or a push wakes it, not at its next poll.
      await client.query(`NOTIFY ${TASKS_DUE}`)
      return eventsOf(group, clock === FIRST_STAGE ? 1 : 2)
    }
    const pushGroup = async (group: string, stage: 1 | 2) => {
      await postAll(
        service.baseUrl,
        numbersOf(group).map((number) => pushBody(number, stage)),
      )
      return eventsOf(group, stage)
    }

    // Each group warmed alike: a fetch group read once at its story's first stage, a push group
    // pushed once at the same stage (the gateway's route and the sender's connections are then as
    // warm as the refresh's); left alone from there.
    for (const group of fetchGroups) await fetchGroup(group)
    for (const group of pushGroups) await pushGroup(group, 1)
    await park()

    // The stories move a stage; each group is changed in turn, fetch, push, push, fetch…
    clock += STEP
    const measure = async (change: () => Promise<number>) => {
      const cpu = [ticks(service.process.pid!), postgresTicks()]
      const started = Date.now()
      const finished = await change()
      const rate = N / ((Math.max(finished, started) - started) / 1000)
      // Clock ticks (10 ms) of the service and of PostgreSQL, in µs a change.
      return { rate, serviceUs: ((ticks(service.process.pid!) - cpu[0]!) * 10_000) / N, postgresUs: ((postgresTicks() - cpu[1]!) * 10_000) / N }
    }
    const pairs: { fetch: Awaited<ReturnType<typeof measure>>; push: Awaited<ReturnType<typeof measure>> }[] = []
    for (let i = 0; i < PAIRS; i++) {
      const fetchFirst = i % 2 === 0
      const first = await measure(() => (fetchFirst ? fetchGroup(fetchGroups[i]!) : pushGroup(pushGroups[i]!, 2)))
      const second = await measure(() => (fetchFirst ? pushGroup(pushGroups[i]!, 2) : fetchGroup(fetchGroups[i]!)))
      pairs.push(fetchFirst ? { fetch: first, push: second } : { fetch: second, push: first })
    }
    const ratios = pairs.map((p) => p.push.rate / p.fetch.rate)
    const median = <T>(items: T[], of: (item: T) => number) => [...items].sort((a, b) => of(a) - of(b))[Math.floor(items.length / 2)]!
    const mid = median(pairs, (p) => p.push.rate / p.fetch.rate)
    row(
      kind,
      `17TRACK: changes a second by push (${fmt(N)} pushes, 50 at once), beside the same by fetch, median of ${PAIRS} pairs (ratios ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
      fmt(mid.push.rate),
      fmt(mid.fetch.rate),
      `${(mid.push.rate / mid.fetch.rate).toFixed(2)}×`,
      '≥ 1×',
    )
    const cpuOf = (side: 'fetch' | 'push', part: 'serviceUs' | 'postgresUs') => median(pairs, (p) => p[side][part])[side][part]
    row(
      kind,
      '17TRACK: CPU of a change by push, service + PostgreSQL (median), beside by fetch',
      `${fmt(cpuOf('push', 'serviceUs'))} + ${fmt(cpuOf('push', 'postgresUs'))} µs`,
      `${fmt(cpuOf('fetch', 'serviceUs'))} + ${fmt(cpuOf('fetch', 'postgresUs'))} µs`,
      `${((cpuOf('push', 'serviceUs') + cpuOf('push', 'postgresUs')) / (cpuOf('fetch', 'serviceUs') + cpuOf('fetch', 'postgresUs'))).toFixed(2)}×`,
      '',
    )

    // No-change fetch: the first fetch group read again at the same stage.
    await park()
    await client.query('CHECKPOINT')
    let before = await lsn(client)
    await client.query(
      `UPDATE task_schedule SET next_refresh_at = now() WHERE task_id IN (SELECT id FROM tracking_tasks WHERE user_id = $1 AND tracking_number LIKE $2 || '%')`,
      [userId, fetchGroups[0]],
    )
    await done(
      `SELECT count(*) = 0 AS done FROM task_schedule s JOIN tracking_tasks t ON t.id = s.task_id
        WHERE t.user_id = $1 AND t.tracking_number LIKE $2 || '%' AND s.next_refresh_at <= now()`,
      [userId, fetchGroups[0]],
    )
    const fetchWal = (await walBetween(client, before, await lsn(client))) / N
    // No-change push: the first push group's news again, in other bytes.
    await client.query('CHECKPOINT')
    before = await lsn(client)
    await postAll(
      service.baseUrl,
      numbersOf(pushGroups[0]!).map((number) => pushBody(number, 2, 'again')),
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
