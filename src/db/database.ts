import pg from 'pg'
import { AppError } from '../domain/errors'

// int8 ids and counts as numbers: ids stay far below 2^53, and the interface types them as uint.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))

export type DatabaseKind = 'embedded' | 'postgres'

/** A transaction's connection: statements as `Database.query` takes them, with the whole result. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<pg.QueryResult<R>>
}

/**
 * The one way the service talks to PostgreSQL (the server at DATABASE_URL, or the embedded server
 * the service runs itself): a `pg` pool, with connection failures turned into `unavailable`.
 */
export class Database {
  constructor(
    readonly pool: pg.Pool,
    readonly kind: DatabaseKind,
    private readonly onClose: () => Promise<void> = async () => {},
  ) {
    // An idle client whose server went away emits here; without a listener the process dies.
    pool.on('error', () => {})
  }

  /**
   * One statement. A `name` makes it a prepared statement, planned once per connection instead of
   * on every call (the hot statements: planning was most of a query's time). Leave unnamed a
   * statement whose best plan depends on its values (the claims, with their LIMIT): after five
   * runs PostgreSQL may switch a named one to a generic plan, made for any LIMIT. Named, the
   * webhook claim averaged 88 ms once there were a few hundred thousand tasks; unnamed, a few ms.
   * A named statement whose LIMIT is the same for any plan (a page size) takes it in its text: as
   * a parameter, PostgreSQL judged the generic plan dearer and planned every call anew. A text
   * built per request is named through StatementNames, which bounds the names given out.
   */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<R[]> {
    try {
      const result = await this.pool.query<R>(statement(text, values, name))
      return result.rows
    } catch (error) {
      throw translateDatabaseError(error)
    }
  }

  /** Runs `work` in one transaction. Keep it short: never call a carrier or a webhook inside. */
  async transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T> {
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch (error) {
      throw translateDatabaseError(error)
    }
    try {
      await client.query('BEGIN')
      const c = client
      const result = await work({ query: (text, values, name) => c.query(statement(text, values, name)) })
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw translateDatabaseError(error)
    } finally {
      client.release()
    }
  }

  /**
   * LISTENs on `channel` with a connection of its own, reconnecting after failures; returns a
   * function that stops listening. Callers poll as well, so LISTEN only makes them faster.
   */
  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    let client: pg.Client | undefined
    let stopped = false
    let retry: NodeJS.Timeout | undefined
    const connect = async () => {
      if (stopped) return
      const next = new pg.Client(this.pool.options)
      next.on('notification', () => onNotify())
      next.on('error', () => {
        next.end().catch(() => {})
        if (!stopped) retry = setTimeout(() => void connect(), 1000)
      })
      try {
        await next.connect()
        await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
        client = next
      } catch {
        await next.end().catch(() => {})
        if (!stopped) retry = setTimeout(() => void connect(), 1000)
      }
    }
    await connect()
    return async () => {
      stopped = true
      clearTimeout(retry)
      await client?.end().catch(() => {})
    }
  }

  async close(): Promise<void> {
    await this.pool.end()
    await this.onClose()
  }
}

function statement(text: string, values: unknown[] | undefined, name: string | undefined): pg.QueryConfig {
  return name ? { name, text, values } : { text, values }
}

export function createPool(connectionString: string, max: number): pg.Pool {
  return new pg.Pool({
    connectionString,
    max,
    // Fail fast when the database is unreachable, so the API answers 503 instead of hanging.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // Sessions run in UTC so that timestamps render the same everywhere.
    options: '-c TimeZone=UTC',
  })
}

// ENOENT: a Unix socket that is not there (the embedded server between its death and its restart).
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENOENT'])

/** SQLSTATE classes that mean "the server cannot serve you now", not "your query is wrong". */
function isUnavailableSqlState(code: string): boolean {
  return (
    code.startsWith('08') || // connection exception
    code === '57P01' || // admin_shutdown
    code === '57P02' || // crash_shutdown
    code === '57P03' || // cannot_connect_now
    code === '53300' // too_many_connections
  )
}

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || isUnavailableSqlState(code))) return true
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/i.test(
    error.message,
  )
}

function translateDatabaseError(error: unknown): unknown {
  if (error instanceof AppError) return error
  if (isDatabaseUnavailable(error)) return new AppError('unavailable', 'the database is unavailable; retry shortly')
  return error
}
