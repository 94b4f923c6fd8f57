import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import { AppError } from '../domain/errors'
import { connectDatabase, isDatabaseUnavailable, type Database } from './database'
import { translateDatabaseError } from './database-errors'
import { DEFAULTS } from '../../test/support/config-defaults'

// What the API answers 503 `unavailable` for: a database it cannot reach now, whatever the way
// it is reached; never a query that is wrong.
describe('a database that cannot serve now', () => {
  it('is unavailable through a Unix socket that is not there (an embedded server restarting) or a refused port', async () => {
    for (const config of [{ host: '/nonexistent-socket-dir' }, { host: '127.0.0.1', port: 9 }]) {
      const client = new pg.Client({ ...config, user: 'x', database: 'x', connectionTimeoutMillis: 2000 })
      const error = await client.connect().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(isDatabaseUnavailable(error), JSON.stringify(config)).toBe(true)
    }
  })

  it('is unavailable on the server states of a shutdown, a crash, a restart, a full disk or a failover, and not on a wrong query', () => {
    const sqlError = (code: string) => Object.assign(new Error('server says'), { code })
    const unavailable = ['57P01', '57P02', '57P03', '57P04', '57P05', '57014', '08006', '08001', '53000', '53100', '53200', '53300', '53400', '58030', '25006']
    for (const code of unavailable) expect(isDatabaseUnavailable(sqlError(code)), code).toBe(true)
    for (const code of ['42P01', '23505', '22P02', '40001', '42601']) expect(isDatabaseUnavailable(sqlError(code)), code).toBe(false)
  })

  it('says what is wrong and when to come back, and keeps what the server said as the cause', () => {
    const full = Object.assign(new Error('could not extend file "base/5/16385": No space left on device'), { code: '53100' })
    const error = translateDatabaseError(full) as AppError
    expect(error).toBeInstanceOf(AppError)
    expect(error).toMatchObject({
      code: 'unavailable',
      message: 'the database is out of disk space and cannot take writes now; retry later',
      retryAfterSeconds: 5,
    })
    expect(error.cause).toBe(full)
    const wrong = Object.assign(new Error('relation "nope" does not exist'), { code: '42P01' })
    expect(translateDatabaseError(wrong)).toBe(wrong)
  })
})

describe('deadlines and broken connections', () => {
  let database: TestDatabase
  let db: Database
  beforeAll(async () => {
    database = await createTestDatabase()
    db = connectDatabase(database.connectionString, 'postgres', {
      poolSize: 2,
      timeouts: { statementMs: 300, connectMs: 300 },
      publicBaseUrl: DEFAULTS.publicBaseUrl,
    })
  })
  afterAll(async () => {
    await db.close()
    await database.close()
  })

  const backendPid = async () => (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid

  it('fails a statement past its deadline with unavailable, cancelled by the server itself when it can', async () => {
    const started = Date.now()
    const error = await db.query('SELECT pg_sleep(5)').catch((e: unknown) => e)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(error).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/^the database did not answer/), retryAfterSeconds: 1 })
    const [row] = await db.query<{ timeout: string }>(`SELECT current_setting('statement_timeout') AS timeout`)
    expect(row!.timeout).toBe('300ms')
  })

  it('destroys the connection of a statement the server does not end in time (as behind a silent network), and goes on', async () => {
    const pids = new Set<number>()
    const started = Date.now()
    const error = await db
      .transaction(async (tx) => {
        pids.add((await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid)
        // The server will not cancel it: only the client's deadline ends the wait.
        await tx.query('SET LOCAL statement_timeout = 0')
        await tx.query('SELECT pg_sleep(5)')
      })
      .catch((e: unknown) => e)
    expect(Date.now() - started).toBeLessThan(2_000)
    expect(error).toMatchObject({ code: 'unavailable', message: 'the database did not answer a statement within 300 ms; retry shortly' })
    // That connection never comes back from the pool: every connection given out now is another backend.
    const now = await Promise.all([backendPid(), backendPid()])
    expect(now.filter((pid) => pids.has(pid))).toEqual([])
  })

  it('fails a wait for a connection past its deadline when every connection is busy', async () => {
    const slow = connectDatabase(database.connectionString, 'postgres', {
      poolSize: 1,
      timeouts: { statementMs: 5_000, connectMs: 300 },
      publicBaseUrl: DEFAULTS.publicBaseUrl,
    })
    try {
      const busy = slow.query('SELECT pg_sleep(1)')
      const started = Date.now()
      const error = await slow.query('SELECT 1').catch((e: unknown) => e)
      expect(Date.now() - started).toBeLessThan(900)
      expect(error).toMatchObject({ code: 'unavailable', message: 'no database connection was free in time; retry shortly' })
      await busy
    } finally {
      await slow.close()
    }
  })

  it('lives through a connection killed while a transaction holds it, between statements', async () => {
    const other = await createTestDatabase()
    try {
      const error = await db
        .transaction(async (tx) => {
          const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
          await other.db.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid])
          // The server's FATAL arrives while no statement is in flight: an 'error' event on the
          // client, which would end the process if nobody listened.
          await new Promise((r) => setTimeout(r, 200))
          await tx.query('SELECT 1')
        })
        .catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'unavailable' })
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }])
    } finally {
      await other.close()
    }
  })

  it('lives through an error on a connection handed to a waiting holder before the holder resumes', async () => {
    // Both connections of the pool held; a third caller waits. Releasing one hands it to the
    // waiter at once, whose promise resumes only after the current code: an error the server
    // sends in that moment (pg parses a chunk's messages together) must find a listener.
    const held = await Promise.all([db.pool.connect(), db.pool.connect()])
    const waiting = db.pool.connect()
    const client = held[0]!
    client.release()
    expect(() => client.emit('error', new Error('terminating connection due to administrator command'))).not.toThrow()
    const next = await waiting
    expect(next).toBe(client)
    next.release(true)
    held[1]!.release()
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }])
  })

  it('gives a long report its own deadline, and maintenance none', async () => {
    expect(await db.queryWithin(5_000, 'SELECT pg_sleep(0.5), 1 AS one')).toEqual([{ pg_sleep: '', one: 1 }])
    expect(await db.maintenance(async (client) => (await client.query(`SELECT pg_sleep(0.5), current_setting('statement_timeout') AS timeout`)).rows)).toEqual([
      { pg_sleep: '', timeout: '0' },
    ])
    // Neither leaves its settings on a pooled connection.
    expect(await db.query<{ timeout: string }>(`SELECT current_setting('statement_timeout') AS timeout`)).toEqual([{ timeout: '300ms' }])
    expect(await backendPid()).toBeGreaterThan(0)
  })
})
