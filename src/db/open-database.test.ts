import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from './database'
import { openDatabase } from './open-database'

// The embedded database: PGlite in its worker thread, reached over its socket, in memory.
let db: Database
beforeAll(async () => {
  db = await openDatabase({ databaseUrl: undefined, dataDir: undefined, poolSize: 10 })
})
afterAll(() => db.close())

const prepared = async (name: string) =>
  (await db.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name LIKE '%' || $1 ORDER BY name`, [name])).map((r) => r.name)

/** Four statements at once: the pool's two connections both run (and prepare) it. */
const fourAtOnce = (name: string) => Promise.all([1, 2, 3, 4].map((n) => db.query<{ n: number }>('SELECT $1::int + 1 AS n', [n], name)))

describe('the embedded database', () => {
  it('prepares statements on each of its two connections under names of their own', async () => {
    expect(db.prepared).toBe(true)
    // PGlite has one session for both: under the same name, the second connection's Parse
    // would fail with "prepared statement already exists".
    expect((await fourAtOnce('open_db_test')).map((rows) => rows[0]!.n)).toEqual([2, 3, 4, 5])
    expect(await prepared('open_db_test')).toEqual(['c1_open_db_test', 'c2_open_db_test'])
  })

  it('drops the statements of a connection that is gone when the next one connects', async () => {
    const client = await db.pool.connect()
    const removed = once(db.pool, 'remove')
    client.release(true)
    await removed
    expect((await fourAtOnce('open_db_test')).map((rows) => rows[0]!.n)).toEqual([2, 3, 4, 5])
    const names = await prepared('open_db_test')
    expect(names).toHaveLength(2)
    expect(names).toContain('c3_open_db_test')
  })

  it('keeps a connection after an error the database answered, and answers on it', async () => {
    const before = await prepared('open_db_test')
    await expect(Promise.all([0, 0].map((n) => db.query('SELECT 1 / $1::int', [n], 'open_db_divide')))).rejects.toThrow(/division by zero/)
    expect((await fourAtOnce('open_db_test')).map((rows) => rows[0]!.n)).toEqual([2, 3, 4, 5])
    expect(await prepared('open_db_test')).toEqual(before)
  })
})
