import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Database } from '../../src/db/database'
import { openDatabase } from '../../src/db/open-database'
import { createTestDatabase, onPostgres, type TestDatabase } from './test-database'

/**
 * The database a process-level test runs the service on: a fresh PostgreSQL database when
 * DATABASE_URL is set, otherwise a fresh embedded data directory. `open()` gives the test its own
 * connection: on the embedded database it attaches to the running service's socket (or opens the
 * directory when no service holds it; close it before starting one).
 */
export interface RunDatabase {
  env: Record<string, string | undefined>
  open(): Promise<Database>
  close(): Promise<void>
}

export async function createRunDatabase(): Promise<RunDatabase> {
  if (onPostgres) {
    const database: TestDatabase = await createTestDatabase()
    return {
      env: { DATABASE_URL: database.connectionString },
      open: async () => openDatabase({ databaseUrl: database.connectionString, dataDir: undefined, poolSize: 4 }),
      close: () => database.close(),
    }
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'tracking-run-'))
  return {
    env: { DATA_DIR: dataDir },
    open: () => openDatabase({ databaseUrl: undefined, dataDir, poolSize: 4, attachToRunning: true }),
    close: async () => rmSync(dataDir, { recursive: true, force: true }),
  }
}
