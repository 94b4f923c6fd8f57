import type pg from 'pg'
import { Database, createPool } from './database'
import { DataDirLockedError } from './embedded/data-dir-lock'
import { connectionStringForPort, startEmbeddedPostgres } from './embedded/embedded-postgres'

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
    // One connection: PGlite runs one statement at a time anyway, and the service's prepared
    // statements live in PGlite's one session, which a second connection of ours would share
    // without its client knowing them. Requests queue in the pool instead. The other
    // connections are for the CLI, which may attach while the service runs.
    const embedded = await startEmbeddedPostgres({ dataDir: options.dataDir, maxConnections: 8 })
    return new Database(ownEmbeddedPool(embedded.connectionString), 'embedded', () => embedded.stop(), { prepared: true })
  } catch (error) {
    if (error instanceof DataDirLockedError && options.attachToRunning && error.holder.port !== undefined) {
      return new Database(createPool(connectionStringForPort(error.holder.port), 2), 'embedded')
    }
    throw error
  }
}

/**
 * The service's one connection to its PGlite, with prepared statements. PGlite keeps one session
 * whatever the connections, so a statement prepared by an earlier connection outlives it: a new
 * connection starts by forgetting them all, to match its client's empty cache. The connection is
 * kept while idle, so that happens only after a failure.
 */
function ownEmbeddedPool(connectionString: string): pg.Pool {
  return createPool(connectionString, 1, {
    idleTimeoutMillis: 0,
    // Awaited by the pool before the client is handed out.
    onConnect: async (client) => {
      await client.query('DEALLOCATE ALL')
    },
  })
}
