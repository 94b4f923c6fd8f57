import { Database, createPool } from './database'
import { DataDirLockedError } from './embedded/data-dir-lock'
import { connectionStringForPort, startEmbeddedPostgres } from './embedded/embedded-postgres'
import { StatementNames } from './embedded/statement-names'

/** The service's own connections to its embedded database. */
const OWN_CONNECTIONS = 2

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string; undefined selects the embedded database. */
  databaseUrl: string | undefined
  /** Embedded data directory; undefined with no databaseUrl means in-memory (tests). */
  dataDir: string | undefined
  poolSize: number
  /**
   * For the CLI and `npm run migrate`: when a running service holds the embedded directory,
   * talk to its database through its socket instead of refusing.
   */
  attachToRunning?: boolean
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return new Database(createPool(options.databaseUrl, options.poolSize), 'postgres')
  try {
    // Two connections, though PGlite runs one statement at a time: with one, it sat idle from
    // each answer until the service's next statement arrived (busy 77-83 % of the batch
    // benchmark); with two, the next statement is already waiting in the wire server (84-94 %
    // busy, batch items/s 1.13×; three were no better). The others are for the CLI, which may
    // attach while the service runs.
    const embedded = await startEmbeddedPostgres({ dataDir: options.dataDir, maxConnections: 8 })
    const names = new StatementNames()
    const pool = createPool(embedded.connectionString, OWN_CONNECTIONS, {
      // Kept while idle: a new connection (after a failure) first clears its predecessors' statements.
      idleTimeoutMillis: 0,
      // Awaited by the pool before the client is handed out.
      onConnect: (client) => names.claim(client),
    })
    return new Database(pool, 'embedded', () => embedded.stop(), { prepared: true, names })
  } catch (error) {
    if (error instanceof DataDirLockedError && options.attachToRunning && error.holder.port !== undefined) {
      return new Database(createPool(connectionStringForPort(error.holder.port), 2), 'embedded')
    }
    throw error
  }
}
