import type pg from 'pg'

/**
 * Waits for work that the database records, and tells when it finished (epoch ms). The statement
 * answers `done` and may answer `at`, the newest of the rows' own times (max(s.last_fetched_at), a
 * delivery's updated_at): a rate then ends where its work did, not at the poll that saw it, so
 * the poll can be seldom. Each poll is a count over the figure's rows on the same two cores as
 * the service being measured (under the burst, such a scan of tracking_tasks took 9-29 ms each).
 */
export function finishedAt(client: pg.Client, everyMs = 100) {
  return async (sql: string, params: unknown[] = []): Promise<number> => {
    for (;;) {
      const { rows } = await client.query<{ done: boolean; at?: number | null }>(sql, params)
      if (rows[0]!.done) return rows[0]!.at ?? Date.now()
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
  }
}

/** The `at` of a statement for finishedAt: a timestamp column's newest value, in epoch ms. */
export const newest = (column: string) => `(EXTRACT(EPOCH FROM max(${column})) * 1000)::float8 AS at`

/**
 * The tasks with their schedules, for a figure's waits: every column of the task, and its
 * schedule's last_fetched_at, next_refresh_at and row version (schedule_xmin).
 */
export const SCHEDULED = `(SELECT t.*, s.last_fetched_at, s.next_refresh_at, s.xmin AS schedule_xmin
                             FROM tracking_tasks t JOIN task_schedule s ON s.task_id = t.id) AS scheduled`

/** Inserts `count` inactive tasks of one carrier, numbered `prefix`1, `prefix`2, … (each with its schedule row, unscheduled). */
export async function insertInactiveTasks(
  client: pg.Client,
  t: { userId: number; carrierCode: string; prefix: string; callbackUrl: string; count: number },
): Promise<void> {
  await client.query(
    `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, inactive_since)
     SELECT $1, $2, $3 || g, $4, now() FROM generate_series(1, $5::int) g`,
    [t.userId, t.carrierCode, t.prefix, t.callbackUrl, t.count],
  )
}

/** Makes the tasks matching `where` (over tracking_tasks' columns) active and due now. */
export async function makeDue(client: pg.Client, where: string, params: unknown[]): Promise<void> {
  await client.query(
    `WITH due AS (UPDATE tracking_tasks SET inactive_since = NULL WHERE ${where} RETURNING id)
     UPDATE task_schedule s SET next_refresh_at = now() FROM due WHERE s.task_id = due.id`,
    params,
  )
}

/** Makes the user's inactive tasks numbered `prefix`1, `prefix`2, … active, due one after another, `perSecond` a second. */
export async function makeDueInTurn(client: pg.Client, userId: number, prefix: string, perSecond: number): Promise<void> {
  await client.query(
    `WITH due AS (UPDATE tracking_tasks SET inactive_since = NULL WHERE user_id = $1 AND tracking_number LIKE $2 || '%' RETURNING id, tracking_number)
     UPDATE task_schedule s SET next_refresh_at = now() + make_interval(secs => substr(due.tracking_number, length($2) + 1)::int / $3::float8)
       FROM due WHERE s.task_id = due.id`,
    [userId, prefix, perSecond],
  )
}
