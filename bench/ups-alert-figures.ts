import pg from 'pg'
import { createCarrierSimulator } from '../src/carriers/registry'
import { TASKS_DUE } from '../src/db/notifier'
import { startService } from '../test/support/service-process'
import { simulatorEnv } from '../test/support/simulator-env'
import { createApiUser } from './api-user'
import { finishedAt, makeDue } from './finished'
import { type FigureContext, fmt } from './report'

/**
 * UPS requests per parcel over a parcel's life, with and without UPS Track Alert (npm run bench;
 * --pushes-only x): N UPS parcels followed from label to delivery over four days at the default
 * cadence (a poll every 2 hours; with Track Alert, a reconciliation every 12 hours and once after
 * delivery), against the bench's simulator as the live UPS, which pushes v1 events to the service
 * as UPS does. Time is compressed 7,200 times (a bench second is two hours: a story stage a
 * simulated day is 12 s), so the whole life takes about 50 s a run. Counted at the simulator: Track
 * API requests and subscription requests (tokens aside). Target: with push at most a fifth.
 */

const N = 100
/** Two hours, compressed: one second. */
const HOUR_MS = 1000 / 2
const SECRET = 'bench-track-alert-secret-0123456789abcdef'

async function lifeRequests(ctx: FigureContext, withPush: boolean): Promise<{ perParcel: number; subscriptions: number }> {
  const sim = createCarrierSimulator({ stepMs: 24 * HOUR_MS })
  await sim.start()
  const service = await startService({
    ...ctx.env,
    ADMIN_TOKEN: ctx.adminToken,
    LOG_LEVEL: 'warn',
    ...simulatorEnv(sim),
    POLL_INTERVAL_SECONDS: String((2 * HOUR_MS) / 1000),
    // The refresh loop looks for due tasks ten times a poll, as its one-second look is to a two-hour poll.
    REFRESH_POLL_MS: '100',
    UPS_REQUEST_BUDGET: '1000',
    ...(withPush
      ? { UPS_TRACK_ALERT_SECRET: SECRET, UPS_TRACK_ALERT_VERSION: 'v1', UPS_TRACK_ALERT_RECONCILE_SECONDS: String((12 * HOUR_MS) / 1000) }
      : { UPS_TRACK_ALERT: 'off' }),
  })
  // UPS pushes each event as it happens: the simulator's pushes are sent 100 ms after the last were.
  let pushing = true
  const pusher = (async () => {
    while (pushing) {
      await sim.pushNow(service.baseUrl).catch(() => 0)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()
  const client = new pg.Client({ connectionString: ctx.dbUrl() })
  await client.connect()
  const done = finishedAt(client, 200)
  try {
    const { userId } = await createApiUser(service.baseUrl, ctx.adminToken, withPush ? 'ups-life-push' : 'ups-life-poll')
    const prefix = withPush ? '1ZLP' : '1ZLW'
    // 1Z + 16, as Track Alert takes them; the simulator's delivered story (label, pickup, transit, out for delivery, delivered).
    await client.query(
      `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, inactive_since)
       SELECT $1, 'UPS', $2 || lpad(g::text, 14, '0'), 'https://shop.example/hook', now() FROM generate_series(1, $3::int) g`,
      [userId, prefix, N],
    )
    sim.resetStats()
    await makeDue(client, `user_id = $1`, [userId])
    await client.query(`NOTIFY ${TASKS_DUE}`)
    await done(
      `SELECT count(*) = $2::int AS done FROM tracking_tasks t JOIN task_schedule s ON s.task_id = t.id
        WHERE t.user_id = $1 AND t.standard_status = 'delivered' AND s.next_refresh_at IS NULL`,
      [userId, N],
    )
    const ups = sim.stats().carriers.ups!
    return { perParcel: (ups.trackRequests + ups.subscriptionRequests) / N, subscriptions: ups.subscriptionRequests }
  } finally {
    pushing = false
    await pusher
    await client.end()
    await service.stop()
    await sim.stop()
  }
}

export async function upsAlertFigures(ctx: FigureContext): Promise<void> {
  const polled = await lifeRequests(ctx, false)
  const pushed = await lifeRequests(ctx, true)
  ctx.row(
    ctx.kind,
    `UPS: carrier requests per parcel from label to delivery (4 days, a poll every 2 h), with Track Alert (${fmt(pushed.subscriptions)} subscription requests for ${N}) beside without`,
    pushed.perParcel.toFixed(1),
    polled.perParcel.toFixed(1),
    `${(pushed.perParcel / polled.perParcel).toFixed(2)}×`,
    '≤ 0.2×',
  )
}
