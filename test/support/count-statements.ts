import type { Database } from '../../src/db/database'

/** Counts the statements `db` runs outside transactions while `work` runs (the real database, just observed). */
export async function countStatements(db: Database, work: () => Promise<unknown>): Promise<number> {
  const original = db.query
  let count = 0
  db.query = ((...args: Parameters<typeof original>) => {
    count++
    return original.apply(db, args)
  }) as typeof db.query
  try {
    await work()
  } finally {
    db.query = original
  }
  return count
}
