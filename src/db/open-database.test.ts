import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from './database'
import { openDatabase } from './open-database'

// The embedded database: PGlite in its worker thread, reached over its socket, in memory.
let db: Database
beforeAll(async () => {
  db = await openDatabase({ databaseUrl: undefined, dataDir: undefined, poolSize: 10 })
})
afterAll(() => db.close())

describe('the embedded database', () => {
  it('uses prepared statements on its one connection, and survives a new connection', async () => {
    expect(db.prepared).toBe(true)
    expect(await db.query<{ n: number }>('SELECT $1::int + 1 AS n', [1], 'open_db_test')).toEqual([{ n: 2 }])
    const [before] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'open_db_test'`)
    expect(before!.n).toBe(1)

    // PGlite's session outlives the connection: without the reset on connect, preparing the
    // same name again on a new connection fails with "prepared statement already exists".
    const client = await db.pool.connect()
    client.release(true)
    expect(await db.query<{ n: number }>('SELECT $1::int + 1 AS n', [2], 'open_db_test')).toEqual([{ n: 3 }])
  })
})
