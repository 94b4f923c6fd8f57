import { AsyncResource } from 'node:async_hooks'
import pg from 'pg'
import { deadlinePassed, translateDatabaseError } from './database-errors'

export { isDatabaseUnavailable } from './database-errors'

// int8 ids and counts as numbers: ids stay far below 2^53, and the interface types them as uint.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))

export type DatabaseKind = 'embedded' | 'postgres'

/** A transaction's connection: statements as `Database.query` takes them, with the whole result. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<pg.QueryResult<R>>
}

/**
 * A unit of work's transaction, handed down to every statement of the unit: nothing joins a
 * transaction it was not given.
 */
export interface Transaction extends Queryable {
  /**
   * Runs `then` once the transaction has committed (never when it rolls back), outside the
   * caller's async context: a wake-up of the workers, a NOTIFY. A worker woken from inside a
   * transaction would otherwise start its round before the change is visible, in the request's
   * context.
   */
  afterCommit(then: () => void): void
}

export interface DatabaseTimeouts {
  /** The longest one statement may run: past it, it is cancelled and its connection destroyed. */
  statementMs: number
  /** The longest a caller waits for a connection (a free one of the pool, or a new one). */
  connectMs: number
}

export const DEFAULT_TIMEOUTS: DatabaseTimeouts = { statementMs: 5_000, connectMs: 5_000 }

export interface DatabaseOptions {
  poolSize: number
  /**
   * The public tracking pages' base URL (PUBLIC_BASE_URL, no trailing slash; config.ts), set on
   * every connection as app.public_base_url: the task documents write each task's page URL from it.
   */
  publicBaseUrl: string
  timeouts?: DatabaseTimeouts
  /** Runs after the pool is closed (the embedded server is stopped there). */
  onClose?: () => Promise<void>
  /** Why the database cannot be reached now, when the process knows (the embedded server's supervisor). */
  outage?: () => string | undefined
}

/**
 * The one way the service talks to PostgreSQL (the server at DATABASE_URL, or the embedded server
 * the service runs itself): a `pg` pool, every statement and every wait for a connection under a
 * deadline, and failures that mean the database cannot serve now turned into `unavailable`
 * (database-errors.ts).
 *
 * A database that fails must never end the process: every connection the pool hands out is
 * listened to for 'error' for as long as it is held (pg-pool drops its own listener on checkout,
 * and an 'error' event nobody hears is thrown), and one that broke, or whose statement passed its
 * deadline, is destroyed rather than returned to the pool.
 */
export class Database {
  readonly timeouts: DatabaseTimeouts
  /** The async context this database was made in (the process's start): where afterCommit runs. */
  private readonly detached = new AsyncResource('tracking.after-commit')

  constructor(
    readonly pool: pg.Pool,
    readonly kind: DatabaseKind,
    private readonly options: Omit<DatabaseOptions, 'poolSize' | 'publicBaseUrl'> = {},
  ) {
    this.timeouts = options.timeouts ?? DEFAULT_TIMEOUTS
    // An idle client whose server went away emits here; without a listener the process dies.
    pool.on('error', () => {})
    // And every client hears 'error' for its whole life, not only while idle or held: pg-pool
    // drops its idle listener when it hands a client to a waiting pool.connect(), whose holder
    // listens only once its promise resumes. A server shutting down can send a fatal error in the
    // same chunk as the ready-for-query that released the client to that waiter; pg parses both
    // at once, and the error found no listener and ended the process (the embedded server
    // restarted under load, in test/faults). What breaks a client is still seen by its holder:
    // its statements fail, and a client pg marked unusable is not put back in the pool.
    pool.on('connect', (client) => client.on('error', () => {}))
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
    // pool.query listens for its connection's 'error' while the statement runs, and a connection
    // that failed it (past the deadline too: pg's query_timeout) is removed from the pool and
    // destroyed. The cheapest path for the one statement of most requests: a connection checked
    // out around the statement cost the query load about a tenth of the API process's CPU.
    try {
      return (await this.pool.query<R>(statement(text, values, name, this.timeouts.statementMs))).rows
    } catch (error) {
      throw translated(error, this.timeouts.statementMs)
    }
  }

  /** One statement known to take long (a report over every task), with a deadline of its own. */
  async queryWithin<R extends pg.QueryResultRow = pg.QueryResultRow>(statementMs: number, text: string, values?: unknown[]): Promise<R[]> {
    return this.inTransaction(statementMs, async (tx) => {
      await tx.query(`SET LOCAL statement_timeout = ${Math.floor(statementMs)}`)
      return (await tx.query<R>(text, values)).rows
    })
  }

  /**
   * A unit of work: `work` in one transaction of its own, on a connection of its own, whoever calls
   * it (a transaction is never joined: one that must include another's statements hands its
   * `tx` down). Keep it short: never call a carrier or a webhook inside. What `tx.afterCommit` was
   * given runs after the COMMIT.
   */
  async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const committed: (() => void)[] = []
    const result = await this.inTransaction(this.timeouts.statementMs, (session) => work(new UnitTransaction(session, committed)))
    for (const then of committed) {
      try {
        this.detached.runInAsyncScope(then)
      } catch (error) {
        // The change is committed: the caller hears of its success, whatever a wake-up did.
        process.emitWarning(error instanceof Error ? error : String(error), 'AfterCommitWarning')
      }
    }
    return result
  }

  private inTransaction<T>(statementMs: number, work: (session: HeldConnection) => Promise<T>): Promise<T> {
    return this.session(statementMs, async (session) => {
      await session.query('BEGIN')
      try {
        const result = await work(session)
        await session.query('COMMIT')
        return result
      } catch (error) {
        if (!session.broken) await session.query('ROLLBACK').catch(() => {})
        throw error
      }
    })
  }

  /**
   * Long maintenance work (migrations, rebuilding derived data): no deadline on its statements,
   * which may take minutes on a large database; its connection is not reused after.
   */
  async maintenance<T>(work: (client: Queryable) => Promise<T>): Promise<T> {
    return this.session(
      0,
      async (session) => {
        await session.query('SET statement_timeout = 0')
        await session.query('SET idle_in_transaction_session_timeout = 0')
        return work(session)
      },
      { discard: true },
    )
  }

  /** A question the database answers at once when it serves (/readyz). */
  async ping(): Promise<void> {
    await this.query('SELECT 1')
  }

  /** Why the database cannot be reached now, when the process knows more than the error says. */
  outage(): string | undefined {
    return this.options.outage?.()
  }

  private async session<T>(statementMs: number, work: (session: HeldConnection) => Promise<T>, options: { discard?: boolean } = {}): Promise<T> {
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch (error) {
      throw translateDatabaseError(error)
    }
    const session = new HeldConnection(client, statementMs)
    try {
      return await work(session)
    } catch (error) {
      throw translated(error, statementMs)
    } finally {
      session.release(options.discard === true)
    }
  }

  /**
   * LISTENs on `channel` with a connection of its own, reconnecting after failures; returns a
   * function that stops listening. Callers poll as well, so LISTEN only makes them faster. The
   * connection is asked a question every LISTEN_CHECK_MS: an idle connection behind a silent
   * network would otherwise wait for TCP to give up (minutes) before it is replaced.
   */
  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    let client: pg.Client | undefined
    let stopped = false
    let retry: NodeJS.Timeout | undefined
    let check: NodeJS.Timeout | undefined
    const again = (broken: pg.Client) => {
      if (client === broken) client = undefined
      clearInterval(check)
      broken.end().catch(() => {})
      if (!stopped) retry = setTimeout(() => void connect(), 1000)
    }
    const connect = async () => {
      if (stopped) return
      const next = new pg.Client(this.pool.options)
      next.on('notification', () => onNotify())
      next.on('error', () => again(next))
      try {
        // connect() has the pool's connect deadline; the statements have the statement deadline.
        await next.connect()
        await next.query(statement(`LISTEN ${pg.escapeIdentifier(channel)}`, [], undefined, this.timeouts.statementMs))
        client = next
        check = setInterval(() => {
          next.query(statement('SELECT 1', [], undefined, this.timeouts.statementMs)).catch(() => again(next))
        }, LISTEN_CHECK_MS)
        check.unref()
      } catch {
        again(next)
      }
    }
    await connect()
    return async () => {
      stopped = true
      clearTimeout(retry)
      clearInterval(check)
      await client?.end().catch(() => {})
    }
  }

  async close(): Promise<void> {
    await this.pool.end()
    await this.options.onClose?.()
  }
}

const LISTEN_CHECK_MS = 30_000

/** A statement as pg takes it, with the deadline after which pg fails it (0: none). */
function statement(text: string, values: unknown[] | undefined, name: string | undefined, deadlineMs: number): pg.QueryConfig {
  const config: pg.QueryConfig & { query_timeout?: number } = name ? { name, text, values } : { text, values }
  if (deadlineMs > 0) config.query_timeout = deadlineMs
  return config
}

/**
 * A connection checked out of the pool: its statements run under the deadline, and its 'error'
 * events are heard (and make it broken) for as long as it is held.
 */
class HeldConnection implements Queryable {
  broken: Error | undefined
  private readonly onError = (error: Error) => {
    this.broken ??= error
  }

  constructor(
    private readonly client: pg.PoolClient,
    /** 0: no deadline. */
    private readonly statementMs: number,
  ) {
    client.on('error', this.onError)
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<pg.QueryResult<R>> {
    try {
      return await this.client.query<R>(statement(text, values, name, this.statementMs))
    } catch (error) {
      // Past the deadline the statement may still be running: the connection must not be reused.
      if (isDeadlineError(error)) this.broken ??= error as Error
      throw error
    }
  }

  /** Back to the pool, or destroyed when it broke (or must not be reused). */
  release(discard: boolean): void {
    this.client.off('error', this.onError)
    // A connection given back with an error is ended by the pool: with a statement still in
    // flight (past its deadline), pg destroys its socket, as behind a silent network nothing else
    // frees it (the server cancels the statement by its own statement_timeout).
    this.client.release(this.broken ?? discard)
  }
}

/** A held connection inside a unit of work, with what runs once it commits. */
class UnitTransaction implements Transaction {
  constructor(
    private readonly session: HeldConnection,
    private readonly committed: (() => void)[],
  ) {}

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<pg.QueryResult<R>> {
    return this.session.query<R>(text, values, name)
  }

  afterCommit(then: () => void): void {
    this.committed.push(then)
  }
}

/** pg's own words for a statement past its query_timeout. */
const isDeadlineError = (error: unknown) => error instanceof Error && error.message === 'Query read timeout'

/** What the caller is told of a failure: a statement past its deadline said so, the rest by database-errors.ts. */
function translated(error: unknown, statementMs: number): unknown {
  return isDeadlineError(error) ? deadlinePassed('a statement', statementMs) : translateDatabaseError(error)
}

/** How long a pooled connection stays open unused. */
export const IDLE_CONNECTION_MS = 30_000
const CONNECTION_LIFETIME_MS = 30_000

/** The pool of one process: its deadlines given to the server too, TCP keepalive on every connection. */
export function connectDatabase(connectionString: string, kind: DatabaseKind, options: DatabaseOptions): Database {
  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize,
    // Fail fast when the database is unreachable or every connection is taken, so the API answers
    // 503 instead of hanging.
    connectionTimeoutMillis: timeouts.connectMs,
    // An idle backend keeps what it grew under load (2-7 MiB each): after 30 s unused it goes.
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    // A backend also keeps what it grew while it is in use, and the workers keep a pool in use
    // long after a load: each connection is replaced once it is this old (at its release), which
    // costs a connect and the hot statements' plans again every half minute.
    maxLifetimeSeconds: CONNECTION_LIFETIME_MS / 1000,
    // A connection to a server that vanished without a reset is found out by TCP, not by waiting.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // The server cancels a statement past the deadline by itself, and ends a session left inside
    // a transaction by a client it can no longer hear (releasing the rows that transaction locked).
    statement_timeout: timeouts.statementMs,
    idle_in_transaction_session_timeout: Math.max(10_000, 2 * timeouts.statementMs),
    // Sessions run in UTC so that timestamps render the same everywhere. The base URL has no
    // spaces or backslashes (config.ts), the startup options' separators.
    options: `-c TimeZone=UTC -c app.public_base_url=${options.publicBaseUrl}`,
  })
  return new Database(pool, kind, { timeouts, onClose: options.onClose, outage: options.outage })
}
