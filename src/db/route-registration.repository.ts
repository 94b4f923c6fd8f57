import type { Database } from './database'
import { statementsOf } from './statements'

/** A number of a routed carrier, as its registration is claimed: `restart` when it was registered before (then stopped). */
export interface RegistrationClaim {
  carrierCode: string
  trackingNumber: string
  restart: boolean
  /** The carrier the number is registered under with no active task left: its tasks' carrier changed (moved, not registered again). */
  movedFrom?: string
}

export type RegistrationState = 'registered' | 'refused' | 'stopped'

/** What became of a claimed registration or stop: its new state, or asked again in `retryInMs`. */
export type RegistrationResult =
  | { carrierCode: string; trackingNumber: string; state: RegistrationState; refusal?: string }
  | { carrierCode: string; trackingNumber: string; retryInMs: number }

/**
 * The aggregator's registrations (docs/carriers.md, "Carriers through 17TRACK"): the routed
 * carriers' tasks found by number (route_tasks) and each number's registration, claimed under a
 * lease while the aggregator is called, so that no number is registered twice by two processes,
 * and a crashed process's claim is taken again when it lapses.
 */
export class RouteRegistrationRepository {
  constructor(private readonly db: Database) {}

  /**
   * Records the active tasks of these carriers not known by number yet (and a carrier changed
   * since); with `afterTaskId`, only tasks of a later id (a round's new tasks, read by key).
   */
  async linkTasks(carrierCodes: readonly string[], afterTaskId = 0): Promise<void> {
    await this.db.query(ROUTE_TASKS_LINK, [carrierCodes, afterTaskId], 'route_tasks_link')
  }

  /**
   * Claims up to `limit` numbers with an active task and no registration (or a stopped one), for
   * `leaseMs`: among the tasks of a later id than `afterTaskId` (by key) and the registrations
   * due again (a failed call, a lapsed lease); 0 looks at every task (a sweep).
   */
  claimRegistrations(carrierCodes: readonly string[], limit: number, leaseMs: number, afterTaskId = 0): Promise<RegistrationClaim[]> {
    return this.db.transaction(async (tx) => {
      // One claim at a time per route: the candidates are read before they have rows to lock.
      await tx.query(ROUTE_REGISTRATION_LOCK, [carrierCodes.join(',')], 'route_registration_lock')
      const { rows } = await tx.query<{ carrier_code: string; tracking_number: string; restart: boolean; moved_from: string | null }>(
        ROUTE_REGISTRATION_CLAIM,
        [carrierCodes, limit, leaseMs, afterTaskId],
        'route_registration_claim',
      )
      return rows.map((r) => ({
        carrierCode: r.carrier_code,
        trackingNumber: r.tracking_number,
        restart: r.restart,
        ...(r.moved_from ? { movedFrom: r.moved_from } : {}),
      }))
    })
  }

  /** Claims up to `limit` registered numbers none of whose tasks is active any more (stopped, finished, deleted). */
  async claimStops(carrierCodes: readonly string[], limit: number, leaseMs: number): Promise<RegistrationClaim[]> {
    const rows = await this.db.query<{ carrier_code: string; tracking_number: string }>(ROUTE_STOP_CLAIM, [carrierCodes, limit, leaseMs], 'route_stop_claim')
    return rows.map((r) => ({ carrierCode: r.carrier_code, trackingNumber: r.tracking_number, restart: false }))
  }

  /** Records what the aggregator said of claimed numbers. */
  async settle(results: readonly RegistrationResult[]): Promise<void> {
    if (results.length === 0) return
    await this.db.query(
      ROUTE_REGISTRATION_SETTLE,
      [
        results.map((r) => r.carrierCode),
        results.map((r) => r.trackingNumber),
        results.map((r) => ('state' in r ? r.state : null)),
        results.map((r) => ('retryInMs' in r ? r.retryInMs : null)),
        results.map((r) => ('refusal' in r ? (r.refusal ?? null) : null)),
      ],
      'route_registration_settle',
    )
  }

  /** Forgets registrations that are no more (moved to another carrier of the number). */
  async forget(rows: readonly { carrierCode: string; trackingNumber: string }[]): Promise<void> {
    if (rows.length === 0) return
    await this.db.query(ROUTE_REGISTRATION_FORGET, [rows.map((r) => r.carrierCode), rows.map((r) => r.trackingNumber)], 'route_registration_forget')
  }

  /** The newest task's id: what a round's new tasks are later than (services/task-window.ts). */
  async newestTaskId(): Promise<number> {
    const [row] = await this.db.query<{ id: string | null }>(ROUTE_NEWEST_TASK, [], 'route_newest_task')
    return Number(row?.id ?? 0)
  }

  /** Forgets the links of deleted tasks. */
  async unlinkGone(): Promise<void> {
    await this.db.query(ROUTE_TASKS_UNLINK, [], 'route_tasks_unlink')
  }

  /** Each number's registration state, for the console and tests. */
  async states(carrierCodes: readonly string[]): Promise<{ carrierCode: string; trackingNumber: string; state: string }[]> {
    const rows = await this.db.query<{ carrier_code: string; tracking_number: string; state: string }>(ROUTE_REGISTRATION_STATES, [carrierCodes])
    return rows.map((r) => ({ carrierCode: r.carrier_code, trackingNumber: r.tracking_number, state: r.state }))
  }
}

const sql = statementsOf(import.meta.url)
// An active task of a routed carrier: its schedule row is due some time, under the same carrier
// (a carrier change moves the schedule row; a stale link then counts for nothing).
const ACTIVE_LINK = `EXISTS (SELECT 1 FROM task_schedule s WHERE s.task_id = rt.task_id AND s.carrier_code = rt.carrier_code AND s.next_refresh_at IS NOT NULL)`
/** The registration `r` (an SQL alias) has no active task left: the number was stopped, finished, deleted or moved. */
const NO_ACTIVE_TASK = (r: string) =>
  `NOT EXISTS (SELECT 1 FROM route_tasks rt WHERE rt.carrier_code = ${r}.carrier_code AND rt.tracking_number = ${r}.tracking_number AND ${ACTIVE_LINK})`
const ROUTE_TASKS_LINK = sql(
  'route_tasks_link',
  `INSERT INTO route_tasks (task_id, carrier_code, tracking_number)
   SELECT s.task_id, s.carrier_code, t.tracking_number
     FROM unnest($1::text[]) AS c (carrier_code)
     JOIN task_schedule s ON s.carrier_code = c.carrier_code AND s.next_refresh_at IS NOT NULL AND s.task_id > $2::bigint
     JOIN tracking_tasks t ON t.id = s.task_id
    WHERE NOT EXISTS (SELECT 1 FROM route_tasks rt WHERE rt.task_id = s.task_id AND rt.carrier_code = s.carrier_code)
   ON CONFLICT (task_id) DO UPDATE SET carrier_code = EXCLUDED.carrier_code, tracking_number = EXCLUDED.tracking_number`,
)
const ROUTE_REGISTRATION_LOCK = sql('route_registration_lock', `SELECT pg_advisory_xact_lock(hashtextextended('route_registration ' || $1::text, 0))`)
const ROUTE_REGISTRATION_CLAIM = sql(
  'route_registration_claim',
  `WITH wanted AS (
     -- The numbers of the tasks later than $4 (by key): never registered, stopped, or a claim
     -- whose lease lapsed (its process died, or the quota ran out).
     (SELECT rt.carrier_code, rt.tracking_number
        FROM route_tasks rt
        LEFT JOIN route_registrations r ON r.carrier_code = rt.carrier_code AND r.tracking_number = rt.tracking_number
       WHERE rt.carrier_code = ANY($1::text[]) AND rt.task_id > $4::bigint
         AND ${ACTIVE_LINK}
         AND (r.state IS NULL OR (r.state <> 'registered' AND r.state <> 'refused' AND (r.lease_until IS NULL OR r.lease_until <= now()))))
     UNION
     -- Due again, of a number still active: a failed call, a lapsed lease (by the retry index).
     (SELECT r.carrier_code, r.tracking_number
        FROM route_registrations r
       WHERE r.state = 'registering' AND r.lease_until <= now() AND r.carrier_code = ANY($1::text[])
         AND EXISTS (SELECT 1 FROM route_tasks rt WHERE rt.carrier_code = r.carrier_code AND rt.tracking_number = r.tracking_number AND ${ACTIVE_LINK}))
     LIMIT $2
   )
   INSERT INTO route_registrations AS r (carrier_code, tracking_number, state, lease_until)
   SELECT carrier_code, tracking_number, 'registering', now() + make_interval(secs => $3::float8 / 1000) FROM wanted
   ON CONFLICT (carrier_code, tracking_number) DO UPDATE SET state = 'registering', lease_until = EXCLUDED.lease_until, updated_at = now()
   RETURNING r.carrier_code, r.tracking_number, r.registered_at IS NOT NULL AS restart,
             -- The same number registered under another of the route's carriers, none of whose
             -- tasks is active: the tasks' carrier changed, and the record is moved there.
             (SELECT o.carrier_code FROM route_registrations o
               WHERE o.carrier_code = ANY($1::text[]) AND o.tracking_number = r.tracking_number
                 AND o.carrier_code <> r.carrier_code AND o.state = 'registered'
                 AND ${NO_ACTIVE_TASK('o')}
               LIMIT 1) AS moved_from`,
)
const ROUTE_REGISTRATION_FORGET = sql(
  'route_registration_forget',
  `DELETE FROM route_registrations r
    USING unnest($1::text[], $2::text[]) AS f (carrier_code, tracking_number)
    WHERE r.carrier_code = f.carrier_code AND r.tracking_number = f.tracking_number`,
)
const ROUTE_STOP_CLAIM = sql(
  'route_stop_claim',
  `UPDATE route_registrations r
      SET state = 'stopping', lease_until = now() + make_interval(secs => $3::float8 / 1000), updated_at = now()
     FROM (SELECT g.carrier_code, g.tracking_number
             FROM route_registrations g
            WHERE g.carrier_code = ANY($1::text[])
              AND (g.state = 'registered' OR (g.state = 'stopping' AND g.lease_until <= now()))
              AND ${NO_ACTIVE_TASK('g')}
            LIMIT $2
              FOR UPDATE SKIP LOCKED) AS idle
    WHERE r.carrier_code = idle.carrier_code AND r.tracking_number = idle.tracking_number
   RETURNING r.carrier_code, r.tracking_number`,
)
const ROUTE_REGISTRATION_SETTLE = sql(
  'route_registration_settle',
  `UPDATE route_registrations r
      SET state = COALESCE(o.state, r.state),
          lease_until = CASE WHEN o.retry_in_ms IS NULL THEN NULL ELSE now() + make_interval(secs => o.retry_in_ms / 1000) END,
          registered_at = CASE WHEN o.state = 'registered' THEN COALESCE(r.registered_at, now()) ELSE r.registered_at END,
          stopped_at = CASE WHEN o.state = 'stopped' THEN now() ELSE r.stopped_at END,
          refusal = o.refusal,
          updated_at = now()
     FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[]) AS o (carrier_code, tracking_number, state, retry_in_ms, refusal)
    WHERE r.carrier_code = o.carrier_code AND r.tracking_number = o.tracking_number`,
)
const ROUTE_NEWEST_TASK = sql('route_newest_task', `SELECT max(id) AS id FROM tracking_tasks`)
const ROUTE_TASKS_UNLINK = sql('route_tasks_unlink', `DELETE FROM route_tasks rt WHERE NOT EXISTS (SELECT 1 FROM task_schedule s WHERE s.task_id = rt.task_id)`)
const ROUTE_REGISTRATION_STATES = sql(
  'route_registration_states',
  `SELECT carrier_code, tracking_number, state FROM route_registrations WHERE carrier_code = ANY($1::text[]) ORDER BY carrier_code, tracking_number`,
)
