import type pg from 'pg'
import { EVENT_TYPES } from '../src/domain/event-types'
import { makeDue, makeDueInTurn, newest, SCHEDULED } from './finished'
import { fmt } from './report'

/**
 * The account endpoints' figures, run by the worker figures on their worker process:
 * a user with three endpoints that take `tracking.status_changed` besides each task's callback
 * (four deliveries a change: at 200 changes/s, 800 deliveries/s). With every event type each
 * change makes about 11.5 deliveries (a status, a milestone, new events and, at the first fetch,
 * an ETA, to each endpoint), 2,300/s at 200 changes/s: more than one process sends (measured:
 * 1,600/s), so that case is measured for its cost to the refresh only.
 *
 * - refresh with endpoints: numbers fetched and applied per second when every change also tells
 *   the endpoints, against the plain refresh figure of the run, for both cases;
 * - status change → first attempt at 200 changes a second, over every delivery (callback and
 *   endpoints);
 * - deliveries per second to endpoints: N × 3 endpoint deliveries made due at once.
 */

export interface EndpointBench {
  kind: string
  client: pg.Client
  /** The receiver's base URL (any path answers 200). */
  receiverBase: string
  /** The plain refresh figure of the same run, numbers/s. */
  plainRefreshRate: number
  row: (db: string, figure: string, value: string, ceiling: string, ratio: string, target: string) => void
  /** finishedAt: waits for what a statement says is done, and tells when it finished. */
  waitFor: (sql: string, params?: unknown[]) => Promise<number>
  latencyOf: (since: Date, userId?: number) => Promise<{ p50: number; p99: number }>
  payload: string
}

const TASKS = 3000
const STEADY = 1000

/** A user with three endpoints taking `eventTypes`, and TASKS tasks of theirs (prefix EPB). */
async function userWithEndpoints(b: EndpointBench, name: string, eventTypes: readonly string[]): Promise<{ userId: number; endpoints: number[] }> {
  const [{ id: userId }] = (
    await b.client.query<{ id: number }>(`INSERT INTO api_users (name, webhook_secret) VALUES ($1, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') RETURNING id`, [
      name,
    ])
  ).rows as [{ id: number }]
  const { rows } = await b.client.query<{ id: number }>(
    `INSERT INTO webhook_endpoints (user_id, url, event_types, secret)
     SELECT $1, $2 || '/endpoint' || g, $3, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' FROM generate_series(1, 3) g RETURNING id`,
    [userId, b.receiverBase, eventTypes],
  )
  await b.client.query(
    `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, inactive_since)
     SELECT $1, CASE WHEN g % 2 = 0 THEN 'FEDEX' ELSE 'UPARCEL' END, 'EPB' || g, $2, now() FROM generate_series(1, $3::int) g`,
    [userId, `${b.receiverBase}/callback`, TASKS],
  )
  return { userId, endpoints: rows.map((r) => r.id) }
}

/** Refreshes the user's tasks at once: numbers/s, and the deliveries made per task, once all are sent. */
async function refreshWithEndpoints(b: EndpointBench, userId: number, label: string): Promise<void> {
  const started = Date.now()
  await makeDue(b.client, 'user_id = $1', [userId])
  const refreshed = await b.waitFor(
    `SELECT count(*) FILTER (WHERE last_fetched_at IS NULL) = 0 AS done, ${newest('last_fetched_at')} FROM ${SCHEDULED} WHERE user_id = $1`,
    [userId],
  )
  const rate = TASKS / ((refreshed - started) / 1000)
  await b.waitFor(`SELECT count(*) FILTER (WHERE status <> 'success') = 0 AS done FROM deliveries WHERE user_id = $1`, [userId])
  const [{ n: made }] = (await b.client.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE user_id = $1`, [userId])).rows as [{ n: number }]
  b.row(
    b.kind,
    `refresh, 3 endpoints a user (${label}; ${(made / TASKS).toFixed(1)} deliveries a task): numbers/s`,
    fmt(rate),
    fmt(b.plainRefreshRate),
    `${(rate / b.plainRefreshRate).toFixed(2)}×`,
    '',
  )
}

export async function endpointFigures(b: EndpointBench): Promise<void> {
  const { client, kind } = b
  const every = await userWithEndpoints(b, 'endpoints, every type', EVENT_TYPES)
  await refreshWithEndpoints(b, every.userId, 'every event type')
  const { userId, endpoints } = await userWithEndpoints(b, 'endpoints', ['tracking.status_changed'])
  await refreshWithEndpoints(b, userId, 'tracking.status_changed')
  let started = Date.now()

  const steadyFrom = new Date()
  await client.query(
    `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, inactive_since)
     SELECT $1, CASE WHEN g % 2 = 0 THEN 'FEDEX' ELSE 'UPARCEL' END, 'EPS' || g, $2, now() FROM generate_series(1, $3::int) g`,
    [userId, `${b.receiverBase}/callback`, STEADY],
  )
  await makeDueInTurn(client, userId, 'EPS', 200)
  await b.waitFor(
    `SELECT count(*) FILTER (WHERE last_fetched_at IS NULL) = 0 AND NOT EXISTS (SELECT 1 FROM deliveries WHERE user_id = $1 AND status <> 'success') AS done
       FROM ${SCHEDULED} WHERE user_id = $1`,
    [userId],
  )
  const steady = await b.latencyOf(steadyFrom, userId)
  b.row(
    kind,
    'status change → first attempt, 200 changes/s, 3 endpoints + callback',
    `p50 ${fmt(steady.p50)} ms, p99 ${fmt(steady.p99)} ms`,
    '',
    '',
    'p50 < 200 ms',
  )

  // Endpoint deliveries made due at once: what one worker process sends per second.
  const N = TASKS * endpoints.length
  await client.query(
    `INSERT INTO deliveries (task_id, user_id, endpoint_id, target, event_type, webhook_id, payload, next_attempt_at)
     SELECT t.id, t.user_id, e.id, 'endpoint', 'tracking.events_added', 'msg_ep' || t.id || '_' || e.id, $2, now() + interval '1 hour'
       FROM tracking_tasks t CROSS JOIN unnest($3::bigint[]) AS e (id)
      WHERE t.user_id = $1 AND t.tracking_number LIKE 'EPB%'`,
    [userId, b.payload, endpoints],
  )
  started = Date.now()
  await client.query(`UPDATE deliveries SET next_attempt_at = now() WHERE webhook_id LIKE 'msg_ep%'`)
  const delivered = await b.waitFor(
    `SELECT count(*) FILTER (WHERE status <> 'success') = 0 AS done, ${newest('updated_at')} FROM deliveries WHERE webhook_id LIKE 'msg_ep%'`,
  )
  const rate = N / ((delivered - started) / 1000)
  b.row(kind, 'webhooks delivered to endpoints /s (one worker process)', fmt(rate), '', '', '≥ 1,500/s')
}
