import type { Database } from './database'
import { statementsOf } from './statements'
import { heldTaskIds } from './task-schedule.sql'

/** What became of a claimed subscription: subscribed until `until`, refused for good, or asked again in `retryInMs`. */
export type SubscriptionResult =
  { trackingNumber: string; subscribedForMs: number } | { trackingNumber: string; refusal: string } | { trackingNumber: string; retryInMs: number }

/**
 * Subscriptions at carriers that push (docs/carriers.md, "UPS Track Alert"): the numbers of a
 * carrier's active tasks (found through route_tasks) with no live subscription, or one that ends
 * soon, claimed under a lease while the carrier is called, so that no two processes subscribe the
 * same number and a crashed process's claim is taken again when it lapses.
 */
export class PushSubscriptionRepository {
  constructor(private readonly db: Database) {}

  /**
   * Claims up to `limit` numbers to subscribe (new) or renew (ending within `renewWithinMs`, or
   * whose last call failed), for `leaseMs`. New numbers are looked for among the tasks of a later
   * id than `afterTaskId` (by key); 0 looks at every task of the carrier (a sweep).
   */
  async claim(carrierCode: string, limit: number, renewWithinMs: number, leaseMs: number, afterTaskId = 0): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      // One claim at a time per carrier: the candidates are read before they have rows to lock.
      await tx.query(PUSH_SUBSCRIPTION_LOCK, [carrierCode], 'push_subscription_lock')
      const { rows } = await tx.query<{ tracking_number: string }>(
        PUSH_SUBSCRIPTION_CLAIM,
        [carrierCode, limit, renewWithinMs, leaseMs, afterTaskId],
        'push_subscription_claim',
      )
      return rows.map((r) => r.tracking_number)
    })
  }

  async settle(carrierCode: string, results: readonly SubscriptionResult[]): Promise<void> {
    if (results.length === 0) return
    await this.db.query(
      PUSH_SUBSCRIPTION_SETTLE,
      [
        carrierCode,
        results.map((r) => r.trackingNumber),
        results.map((r) => ('subscribedForMs' in r ? r.subscribedForMs : null)),
        results.map((r) => ('refusal' in r ? r.refusal : null)),
        results.map((r) => ('retryInMs' in r ? r.retryInMs : null)),
      ],
      'push_subscription_settle',
    )
  }

  /**
   * Moves the next poll of these numbers' active tasks to `reconcileMs` after their last fetch,
   * for the tasks fetched before and due sooner, that no claim holds (a claim owns its due time).
   */
  async deferPolls(carrierCode: string, trackingNumbers: readonly string[], reconcileMs: number): Promise<void> {
    await this.db.query(PUSH_SUBSCRIPTION_DEFER_POLLS, [carrierCode, trackingNumbers, reconcileMs], 'push_subscription_defer_polls')
  }

  /** Of these numbers, the ones whose carrier pushes their events now. */
  async subscribed(carrierCode: string, trackingNumbers: readonly string[]): Promise<Set<string>> {
    if (trackingNumbers.length === 0) return new Set()
    const rows = await this.db.query<{ tracking_number: string }>(PUSH_SUBSCRIPTION_LIVE, [carrierCode, trackingNumbers], 'push_subscription_live')
    return new Set(rows.map((r) => r.tracking_number))
  }

  /** Forgets the subscriptions (and refusals) of numbers with no active task left: UPS has no unsubscribe, they lapse there. */
  async prune(carrierCode: string): Promise<void> {
    await this.db.query(PUSH_SUBSCRIPTION_PRUNE, [carrierCode], 'push_subscription_prune')
  }

  /** Each number's subscription, for the console and tests. */
  async states(carrierCode: string): Promise<{ trackingNumber: string; state: string; subscribedUntil: Date | null }[]> {
    const rows = await this.db.query<{ tracking_number: string; state: string; subscribed_until: Date | null }>(PUSH_SUBSCRIPTION_STATES, [carrierCode])
    return rows.map((r) => ({ trackingNumber: r.tracking_number, state: r.state, subscribedUntil: r.subscribed_until }))
  }
}

const sql = statementsOf(import.meta.url)
// A number with an active task of the carrier: its schedule row is due some time, under that carrier.
const ACTIVE_NUMBER = (p: string) =>
  `EXISTS (SELECT 1 FROM route_tasks rt JOIN task_schedule s ON s.task_id = rt.task_id AND s.carrier_code = rt.carrier_code AND s.next_refresh_at IS NOT NULL
            WHERE rt.carrier_code = ${p}.carrier_code AND rt.tracking_number = ${p}.tracking_number)`
const PUSH_SUBSCRIPTION_LOCK = sql('push_subscription_lock', `SELECT pg_advisory_xact_lock(hashtextextended('push_subscription ' || $1::text, 0))`)
/** When a subscription `p` (an SQL alias) is to be renewed: never subscribed, or ending within $3 ms. */
const RENEWAL_DUE = (p: string) => `COALESCE(${p}.subscribed_until, '-infinity'::timestamptz) <= now() + make_interval(secs => $3::float8 / 1000)`
const PUSH_SUBSCRIPTION_CLAIM = sql(
  'push_subscription_claim',
  `WITH wanted AS (
     -- New: the numbers of tasks later than $5 with no subscription, or one due (by the tasks' key).
     (SELECT rt.carrier_code, rt.tracking_number
        FROM route_tasks rt
        JOIN task_schedule s ON s.task_id = rt.task_id AND s.carrier_code = rt.carrier_code AND s.next_refresh_at IS NOT NULL
        LEFT JOIN push_subscriptions p ON p.carrier_code = rt.carrier_code AND p.tracking_number = rt.tracking_number
       WHERE rt.carrier_code = $1 AND rt.task_id > $5::bigint
         AND (p.state IS NULL
              OR (p.state <> 'refused' AND (p.lease_until IS NULL OR p.lease_until <= now()) AND ${RENEWAL_DUE('p')})))
     UNION
     -- Due: subscriptions ending soon, or whose last call failed, soonest first by their renewal
     -- index, of a number still active (a sweep forgets the others: few are due meanwhile).
     (SELECT d.carrier_code, d.tracking_number
        FROM (SELECT p.carrier_code, p.tracking_number
                FROM push_subscriptions p
               WHERE p.carrier_code = $1 AND p.state <> 'refused' AND ${RENEWAL_DUE('p')}
                 AND (p.lease_until IS NULL OR p.lease_until <= now())
               ORDER BY COALESCE(p.subscribed_until, '-infinity'::timestamptz)
               LIMIT 1000) d
       WHERE ${ACTIVE_NUMBER('d')})
     LIMIT $2
   )
   INSERT INTO push_subscriptions AS p (carrier_code, tracking_number, state, lease_until)
   SELECT carrier_code, tracking_number, 'subscribing', now() + make_interval(secs => $4::float8 / 1000) FROM wanted
   ON CONFLICT (carrier_code, tracking_number) DO UPDATE SET state = 'subscribing', lease_until = EXCLUDED.lease_until, updated_at = now()
   RETURNING p.tracking_number`,
)
const PUSH_SUBSCRIPTION_SETTLE = sql(
  'push_subscription_settle',
  `UPDATE push_subscriptions p
      SET state = CASE WHEN o.subscribed_for_ms IS NOT NULL THEN 'subscribed'
                       WHEN o.refusal IS NOT NULL THEN 'refused'
                       WHEN p.subscribed_until > now() THEN 'subscribed'
                       ELSE 'subscribing' END,
          subscribed_until = CASE WHEN o.subscribed_for_ms IS NOT NULL THEN now() + make_interval(secs => o.subscribed_for_ms / 1000) ELSE p.subscribed_until END,
          lease_until = CASE WHEN o.retry_in_ms IS NULL THEN NULL ELSE now() + make_interval(secs => o.retry_in_ms / 1000) END,
          refusal = o.refusal,
          updated_at = now()
     FROM unnest($2::text[], $3::float8[], $4::text[], $5::float8[]) AS o (tracking_number, subscribed_for_ms, refusal, retry_in_ms)
    WHERE p.carrier_code = $1 AND p.tracking_number = o.tracking_number`,
)
const PUSH_SUBSCRIPTION_DEFER_POLLS = sql(
  'push_subscription_defer_polls',
  `UPDATE task_schedule s
      SET next_refresh_at = s.last_fetched_at + make_interval(secs => $3::float8 / 1000)
     FROM route_tasks rt
    WHERE rt.carrier_code = $1 AND rt.tracking_number = ANY($2::text[])
      AND s.task_id = rt.task_id AND s.carrier_code = rt.carrier_code
      AND s.last_fetched_at IS NOT NULL AND s.refresh_failures = 0
      AND s.next_refresh_at < s.last_fetched_at + make_interval(secs => $3::float8 / 1000)
      AND s.task_id NOT IN (${heldTaskIds('$1')})`,
)
const PUSH_SUBSCRIPTION_LIVE = sql(
  'push_subscription_live',
  `SELECT tracking_number FROM push_subscriptions
    WHERE carrier_code = $1 AND tracking_number = ANY($2::text[]) AND subscribed_until > now()`,
)
const PUSH_SUBSCRIPTION_PRUNE = sql(
  'push_subscription_prune',
  `DELETE FROM push_subscriptions p
    WHERE p.carrier_code = $1
      AND (p.lease_until IS NULL OR p.lease_until <= now())
      AND NOT ${ACTIVE_NUMBER('p')}`,
)
const PUSH_SUBSCRIPTION_STATES = sql(
  'push_subscription_states',
  `SELECT tracking_number, state, subscribed_until FROM push_subscriptions WHERE carrier_code = $1 ORDER BY tracking_number`,
)
