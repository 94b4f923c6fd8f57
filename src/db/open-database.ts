import { resolve } from 'node:path'
import { connectDatabase, type Database, type DatabaseTimeouts } from './database'
import { startEmbeddedServer, type EmbeddedLog, type EmbeddedRole } from './embedded/embedded-server'

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string; undefined selects the embedded server under `dataDir`. */
  databaseUrl: string | undefined
  dataDir: string
  poolSize: number
  /** The public tracking pages' base URL (database.ts). */
  publicBaseUrl: string
  /** Deadlines of every statement and every wait for a connection (the defaults when unset). */
  timeouts?: DatabaseTimeouts
  /**
   * service: runs the embedded server for as long as the process lives (refused when another
   * service runs it); tool (CLI, migrate): uses the running server, or runs one for its work.
   */
  role: EmbeddedRole
  log?: EmbeddedLog
  /** The embedded server went away and could not be brought back (the service should exit). */
  onLost?: (error: Error) => void
}

/** The database the process works on: the same pool and SQL whichever server it is. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const { poolSize, timeouts, publicBaseUrl } = options
  if (options.databaseUrl) return connectDatabase(options.databaseUrl, 'postgres', { poolSize, timeouts, publicBaseUrl })
  const server = await startEmbeddedServer({ dataDir: options.dataDir, role: options.role, log: options.log, onLost: options.onLost })
  return connectDatabase(server.connectionString, 'embedded', {
    poolSize,
    timeouts,
    publicBaseUrl,
    onClose: () => server.stop(),
    outage: () => server.outage(),
  })
}

/** Where the process's data lives, for an operator to read (never a password). */
export function describeDatabase(options: Pick<OpenDatabaseOptions, 'databaseUrl' | 'dataDir'>): string {
  if (!options.databaseUrl) return `the embedded database in ${resolve(options.dataDir)}`
  try {
    const url = new URL(options.databaseUrl)
    return `PostgreSQL at ${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname}`
  } catch {
    return 'PostgreSQL at DATABASE_URL'
  }
}
