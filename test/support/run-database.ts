import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Database } from '../../src/db/database'
import { openDatabase } from '../../src/db/open-database'
import { createTestDatabase, onPostgres, type TestDatabase } from './test-database'
import { DEFAULTS } from './config-defaults'

/**
 * The database a process-level test runs the service on: a fresh PostgreSQL database when
 * DATABASE_URL is set, otherwise a fresh embedded data directory, which the service under test
 * sets up as `npm start` does. `open()` gives the test its own connection (on the embedded
 * database: to the server the running service runs, or one started for the test while none does).
 */
export interface RunDatabase {
  env: Record<string, string | undefined>
  open(): Promise<Database>
  close(): Promise<void>
}

/**
 * `shared`: a database on the run's test server whichever run it is, for layouts of several
 * service processes on one database (ROLE=api beside ROLE=worker), which only PostgreSQL serves:
 * on the embedded run that server is itself an embedded PostgreSQL server.
 */
export async function createRunDatabase(options: { shared?: boolean } = {}): Promise<RunDatabase> {
  if (onPostgres || options.shared) {
    const database: TestDatabase = await createTestDatabase()
    return {
      env: { DATABASE_URL: database.connectionString },
      open: async () => openDatabase({ databaseUrl: database.connectionString, dataDir: '', poolSize: 4, publicBaseUrl: DEFAULTS.publicBaseUrl, role: 'tool' }),
      close: () => database.close(),
    }
  }
  const dataDir = tempDataDir()
  return {
    env: { DATA_DIR: dataDir },
    open: () => openDatabase({ databaseUrl: undefined, dataDir, poolSize: 4, publicBaseUrl: DEFAULTS.publicBaseUrl, role: 'tool' }),
    close: async () => rmSync(dataDir, { recursive: true, force: true }),
  }
}

/** A new data directory, open to the account that runs the embedded server when the tests run as root. */
export function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tracking-run-'))
  chmodSync(dir, 0o755)
  return dir
}
