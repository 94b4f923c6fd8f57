/**
 * The SQL of the refresh's schedule shared by its statements (refresh.repository.ts claims and
 * releases, refresh-writes.ts applies): what a claim holds, what a successful fetch writes, and
 * when a row is still held by the claim that took it.
 */

/** A time `ms` milliseconds from now (`ms` an SQL expression of milliseconds). */
export const fromNow = (ms: string) => `now() + make_interval(secs => ${ms} / 1000)`

/** The ids of the tasks the live claims of the carrier `carrier` (an SQL expression) hold. */
export const heldTaskIds = (carrier: string) =>
  `SELECT unnest(c.task_ids) AS task_id FROM refresh_claims c WHERE c.carrier_code = ${carrier} AND c.lease_until > now()`

/** The assignments of a successful fetch to a schedule row, due again at `due` (an SQL expression; NULL: never). */
export const fetchedSchedule = (due: string) => `next_refresh_at = ${due},
          refresh_failures = 0,
          due_since = NULL,
          last_fetched_at = now()`

/**
 * Whether the schedule row `s` is still held by the claim of the input row `c` (its `due_at` and
 * `lease_token`): still due when it was claimed, under a live lease. "IS NOT DISTINCT FROM", not
 * "=": the row is found by its key; with "=" the planner looked the due time up in the due index,
 * whose entries share due times by the thousand.
 */
export const stillClaimed = (s: string, c: string) => `${s}.next_refresh_at IS NOT DISTINCT FROM ${c}.due_at
      AND EXISTS (SELECT 1 FROM refresh_claims l WHERE l.lease_token = ${c}.lease_token AND l.lease_until > now())`
