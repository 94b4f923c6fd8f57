import type pg from 'pg'

/**
 * Waits for work that the database records, and tells when it finished (epoch ms). The statement
 * answers `done` and may answer `at`, the newest of the rows' own times (max(last_fetched_at), a
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
