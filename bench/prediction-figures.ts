import pg from 'pg'
import { createCarrierSimulator } from '../src/carriers/registry'
import type { ShipmentView } from '../src/simulator/simulated-carrier'
import { stage, type Place } from '../src/simulator/stories'
import { startService } from '../test/support/service-process'
import { simulatorEnv } from '../test/support/simulator-env'
import { createApiUser } from './api-user'
import { finishedAt, makeDue } from './finished'
import { warmLoad } from './load'
import { type FigureContext, fmt } from './report'

/**
 * The predicted delivery, measured. A backtest: a generated history of parcels on 60 lanes of three
 * carriers (transit times log-normal per lane: medians of 1-5 days at home and 4-12 abroad, USPS's
 * a third longer, spreads (sigma) of 0.15-0.35; one parcel in twenty held 2-5 days more; nothing
 * delivered on a Sunday; a sixth of the lanes thin), served by the simulator as each carrier's wire format. Three
 * quarters of each lane's parcels are subscribed and delivered through the refresh, which learns
 * the lanes; the rest are subscribed and fetched once picked up, and their full task's prediction
 * is compared with when they were in truth delivered: the mean absolute error beside the naive
 * prediction's (the carrier's overall median), and the share delivered inside [earliest, latest].
 * Then the analytics' latency over 1,000,000 delivered tasks of one user (a year on 60 lanes,
 * written as the refresh's aggregates).
 */

const HOUR = 3_600_000
const CARRIERS = ['FEDEX', 'UPS', 'USPS'] as const

/** A seeded generator (mulberry32): the same history every run. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface GeneratedLane {
  carrier: (typeof CARRIERS)[number]
  origin: Place
  destination: Place
  medianHours: number
  sigma: number
  parcels: number
}

interface Parcel {
  lane: GeneratedLane
  pickup: Date
  delivered: Date
}

const US_STATES = ['TN', 'CA', 'NY', 'TX', 'WA', 'IL', 'FL', 'GA', 'CO', 'MA']
const ABROAD = [
  ['SG', '', 480],
  ['DE', 'BE', 60],
  ['GB', '', 0],
  ['JP', '13', 540],
] as const

function place(country: string, state: string, offsetMinutes: number): Place {
  return { city: `${country}-${state || 'CITY'}`, state, country, postalCode: '10001', street: '', offsetMinutes }
}

function generate(rng: () => number): { lanes: GeneratedLane[]; parcels: Parcel[] } {
  const lanes: GeneratedLane[] = []
  for (let i = 0; i < 60; i++) {
    const carrier = CARRIERS[i % 3]!
    const origin = place('US', US_STATES[i % US_STATES.length]!, -300)
    const abroad = carrier !== 'USPS' && i % 4 === 0 ? ABROAD[(i / 4) % ABROAD.length]! : undefined
    const destination = abroad ? place(abroad[0], abroad[1], abroad[2]) : place('US', US_STATES[(i * 7 + 3 + Math.floor(i / 30)) % US_STATES.length]!, -360)
    // Domestic lanes 1-5 days, international 4-12; USPS slower; a sixth of the lanes thin.
    const base = abroad ? 96 + rng() * 190 : 24 + rng() * 96
    lanes.push({
      carrier,
      origin,
      destination,
      medianHours: carrier === 'USPS' ? base * 1.3 : base,
      sigma: 0.15 + rng() * 0.2,
      parcels: i % 6 === 5 ? 8 + Math.floor(rng() * 12) : 60 + Math.floor(rng() * 140),
    })
  }
  const now = Date.now()
  const parcels: Parcel[] = []
  for (const lane of lanes) {
    for (let p = 0; p < lane.parcels; p++) {
      const pickup = new Date(now - 120 * 24 * HOUR + rng() * 100 * 24 * HOUR)
      // Log-normal (Box-Muller), and one parcel in twenty held two to five days more.
      const normal = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng())
      let hours = lane.medianHours * Math.exp(lane.sigma * normal) + (rng() < 0.05 ? 48 + rng() * 72 : 0)
      // Nothing is delivered on a Sunday (UTC): Monday instead.
      if (new Date(pickup.getTime() + hours * HOUR).getUTCDay() === 0) hours += 24
      parcels.push({ lane, pickup, delivered: new Date(pickup.getTime() + hours * HOUR) })
    }
  }
  // The issue's floor is 50 distinct lanes: lanes that share a key would be learned as one.
  const keys = new Set(lanes.map((l) => [l.carrier, l.origin.country, l.origin.state, l.destination.country, l.destination.state].join('|')))
  if (keys.size < 50) throw new Error(`the backtest's history has ${keys.size} distinct lanes, fewer than 50`)
  return { lanes, parcels }
}

/** What the carrier shows of a parcel: delivered (learned from), or only picked up (to predict). */
function viewOf(parcel: Parcel, delivered: boolean): ShipmentView {
  const { lane, pickup } = parcel
  const label = new Date(pickup.getTime() - 2 * HOUR)
  const moving = new Date(pickup.getTime() + 2 * HOUR)
  const stages = [stage('label', lane.origin), stage('picked_up', lane.origin)]
  const times = [label, pickup]
  if (delivered) {
    const out = new Date(Math.max(moving.getTime() + 60_000, parcel.delivered.getTime() - 3 * HOUR))
    stages.push(stage('in_transit', lane.origin), stage('out_for_delivery', lane.destination), stage('delivered', lane.destination))
    times.push(moving, out, parcel.delivered)
  }
  return {
    stages,
    times,
    final: delivered,
    estimatedDelivery: new Date(pickup.getTime() + 10 * 24 * HOUR),
    origin: lane.origin,
    destination: lane.destination,
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

export async function predictionFigures(options: FigureContext): Promise<void> {
  const { kind, env, dbUrl, adminToken, row, seconds } = options
  const { parcels } = generate(random(37))
  // Per lane, its last quarter (at least two) held out.
  const learn: Parcel[] = []
  const test: Parcel[] = []
  const byLane = new Map<GeneratedLane, Parcel[]>()
  for (const p of parcels) byLane.set(p.lane, [...(byLane.get(p.lane) ?? []), p])
  for (const list of byLane.values()) {
    const held = Math.max(2, Math.floor(list.length / 4))
    learn.push(...list.slice(0, list.length - held))
    test.push(...list.slice(list.length - held))
  }
  // Numbers of eight characters: UPS refuses an inquiry number under seven.
  const number = (prefix: string, i: number) => `${prefix}${String(i).padStart(6, '0')}`
  const histories = new Map<string, ShipmentView>([
    ...learn.map((p, i) => [number('PL', i), viewOf(p, true)] as const),
    ...test.map((p, i) => [number('PT', i), viewOf(p, false)] as const),
  ])
  const sim = createCarrierSimulator({ stepMs: 0, histories: (n) => histories.get(n) })
  await sim.start()
  const budgets = Object.fromEntries(CARRIERS.map((c) => [`${c}_REQUEST_BUDGET`, '1000']))
  const service = await startService({
    ...env,
    ...simulatorEnv(sim),
    ...budgets,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    ROLE: 'all',
    REFRESH_CLAIM_LIMIT: '1000',
    RATE_LIMIT_PER_TOKEN: '0',
    RATE_LIMIT_PER_ADDRESS: '0',
  })
  const client = new pg.Client({ connectionString: dbUrl() })
  client.on('error', () => {})
  await client.connect()
  try {
    const { userId, token } = await createApiUser(service.baseUrl, adminToken, 'backtest')
    const subscribe = async (prefix: string, list: Parcel[]) => {
      await client.query(
        `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, inactive_since)
         SELECT $1, c, $2 || lpad((i - 1)::text, 6, '0'), 'https://shop.example/hook', now() FROM unnest($3::text[]) WITH ORDINALITY AS u (c, i)`,
        [userId, prefix, list.map((p) => p.lane.carrier)],
      )
      await makeDue(client, 'user_id = $1 AND tracking_number LIKE $2', [userId, `${prefix}%`])
    }
    // Learned through the refresh: every parcel of the learning part delivered.
    const started = Date.now()
    await subscribe('PL', learn)
    await finishedAt(client)(
      `SELECT count(*) FILTER (WHERE standard_status = 'delivered') = $2 AS done FROM tracking_tasks WHERE user_id = $1 AND tracking_number LIKE 'PL%'`,
      [userId, learn.length],
    )
    const learnSeconds = (Date.now() - started) / 1000
    await subscribe('PT', test)
    await finishedAt(client)(
      `SELECT count(*) FILTER (WHERE transit_started_at IS NOT NULL) = $2 AS done FROM tracking_tasks WHERE user_id = $1 AND tracking_number LIKE 'PT%'`,
      [userId, test.length],
    )
    const { rows } = await client.query<{ id: number; n: string }>(
      `SELECT id, tracking_number AS n FROM tracking_tasks WHERE user_id = $1 AND tracking_number LIKE 'PT%'`,
      [userId],
    )
    const naive = new Map(CARRIERS.map((c) => [c, median(learn.filter((p) => p.lane.carrier === c).map((p) => p.delivered.getTime() - p.pickup.getTime()))]))
    let error = 0
    let naiveError = 0
    let inside = 0
    let predicted = 0
    const bases = new Map<string, number>()
    for (const r of rows) {
      const parcel = test[Number(r.n.slice(2))]!
      const res = await fetch(`${service.baseUrl}/openapi/tracking-subscriptions/${r.id}`, { headers: { authorization: `Bearer ${token}` } })
      const task = (
        (await res.json()) as { data: { predictedDeliveryAt: string | null; prediction: { basis: string; earliest: string; latest: string } | null } }
      ).data
      if (!task.predictedDeliveryAt || !task.prediction) continue
      predicted++
      const truth = parcel.delivered.getTime()
      error += Math.abs(Date.parse(task.predictedDeliveryAt) - truth) / HOUR
      naiveError += Math.abs(parcel.pickup.getTime() + naive.get(parcel.lane.carrier)! - truth) / HOUR
      if (truth >= Date.parse(task.prediction.earliest) && truth <= Date.parse(task.prediction.latest)) inside++
      bases.set(task.prediction.basis, (bases.get(task.prediction.basis) ?? 0) + 1)
    }
    const mae = error / predicted
    const naiveMae = naiveError / predicted
    row(
      kind,
      `prediction backtest: ${fmt(learn.length)} deliveries learned through the refresh (${learnSeconds.toFixed(0)} s), ${fmt(predicted)} of ${fmt(test.length)} held out predicted (${[...bases].map(([b, n]) => `${b} ${n}`).join(', ')}): mean absolute error, hours`,
      mae.toFixed(1),
      `${naiveMae.toFixed(1)} (carrier's median)`,
      `${(mae / naiveMae).toFixed(2)}×`,
      '≤ 0.6× the naive error',
    )
    row(kind, 'prediction backtest: held-out deliveries inside [earliest, latest]', `${((100 * inside) / predicted).toFixed(1)} %`, '', '', '75-85 %')

    // The analytics over a year of 1,000,000 deliveries of one user on 60 lanes, as the refresh
    // aggregates them (transit_days: a row per day, lane and transit-time bucket).
    const big = await createApiUser(service.baseUrl, adminToken, 'a million deliveries')
    await client.query(
      `INSERT INTO transit_days (user_id, delivered_on, carrier_code, origin_country, origin_state, destination_country, destination_state,
                                 transit_bucket, deliveries, with_eta, on_time, exceptions)
       SELECT $1, DATE '2026-01-01' + (g % 365), (ARRAY['FEDEX', 'UPS', 'USPS'])[1 + lane % 3], 'US', 'S' || (lane % 10), 'US', 'D' || lane,
              b, count(*), count(*) FILTER (WHERE g % 2 = 0), count(*) FILTER (WHERE g % 2 = 0 AND g % 3 > 0), count(*) FILTER (WHERE g % 20 = 0)
         FROM generate_series(1, 1000000) g,
              LATERAL (SELECT g % 60 AS lane) l,
              LATERAL (SELECT CASE WHEN h < 72 THEN floor(h) WHEN h < 336 THEN floor(h / 6) * 6 ELSE floor(h / 24) * 24 END::int AS b
                         FROM (SELECT (20 + lane * 2) * exp(0.35 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())) AS h) x) bucket
        GROUP BY 2, 3, 5, 7, 8`,
      [big.userId],
    )
    await client.query(
      `INSERT INTO transit_months (user_id, month, carrier_code, origin_country, origin_state, destination_country, destination_state,
                                   transit_bucket, deliveries, with_eta, on_time, exceptions)
       SELECT user_id, date_trunc('month', delivered_on)::date, carrier_code, origin_country, origin_state, destination_country, destination_state,
              transit_bucket, sum(deliveries), sum(with_eta), sum(on_time), sum(exceptions)
         FROM transit_days WHERE user_id = $1 GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
      [big.userId],
    )
    await client.query('VACUUM ANALYZE transit_days, transit_months')
    const rowsOf = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM transit_days WHERE user_id = $1', [big.userId])).rows[0]!.n
    for (const [label, query] of [
      ['a year, per lane', ''],
      ['a year, per carrier', '?groupBy=carrier'],
      ['a month of one carrier, per lane', '?carrierCode=UPS&deliveredFrom=2026-06-01&deliveredTo=2026-06-30'],
      ['from mid-March to mid-November, per lane (two cut months read by the day)', '?deliveredFrom=2026-03-15&deliveredTo=2026-11-14'],
    ] as const) {
      const probe = await fetch(`${service.baseUrl}/openapi/analytics/transit-times${query}`, { headers: { authorization: `Bearer ${big.token}` } })
      if (probe.status !== 200) throw new Error(`analytics ${query}: HTTP ${probe.status} ${await probe.text()}`)
      const result = await warmLoad({
        url: service.baseUrl,
        connections: 1,
        seconds: Math.min(seconds, 5),
        headers: { authorization: `Bearer ${big.token}` },
        path: () => `/openapi/analytics/transit-times${query}`,
      })
      if (result.non2xx > 0) throw new Error(`analytics: ${result.non2xx} answers were not 2xx`)
      row(
        kind,
        `transit-time analytics over 1,000,000 deliveries of one user (${fmt(rowsOf)} day rows): ${label}, one connection`,
        `p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`,
        '',
        '',
        'p50 < 100 ms',
      )
    }
  } finally {
    await client.end()
    await service.stop()
    await sim.stop()
  }
}
