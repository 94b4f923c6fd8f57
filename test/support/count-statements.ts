import type { Database } from '../../src/db/database'

/** Counts the statements `db`'s pool sends while `work` runs (the real pool, just observed). */
export async function countStatements(db: Database, work: () => Promise<unknown>): Promise<number> {
  const pool = db.pool
  const original = pool.query.bind(pool)
  let count = 0
  pool.query = ((...args: Parameters<typeof original>) => {
    count++
    return original(...args)
  }) as typeof pool.query
  try {
    await work()
  } finally {
    pool.query = original
  }
  return count
}
