import { randomBytes } from 'node:crypto'
import { inject } from 'vitest'
import { connectDatabase, type Database } from '../../src/db/database'
import { adminQuery, databaseUrl } from './global-setup'
import { DEFAULTS } from './config-defaults'

/**
 * A database of its own for one test file, on the run's test server (see global-setup.ts): a
 * copy of the migrated template, dropped at the end. Nothing is mocked.
 */
export interface TestDatabase {
  db: Database
  /** The connection string, for spawning processes on the same database. */
  connectionString: string
  close(): Promise<void>
}

/** The run's tests are on the machine's PostgreSQL (DATABASE_URL), not on the embedded server. */
export const onPostgres = Boolean(process.env.DATABASE_URL)

const SEEDING_TIMEOUTS = { statementMs: 300_000, connectMs: 30_000 }

export async function createTestDatabase(options: { poolSize?: number; migrated?: boolean } = {}): Promise<TestDatabase> {
  const server = inject('testServer')
  const name = `test_${Date.now()}_${randomBytes(4).toString('hex')}`
  await adminQuery(server.url, options.migrated === false ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${server.template}`)
  const connectionString = databaseUrl(server.url, name)
  // Tests seed hundreds of thousands of rows in one statement: more than a request's deadline.
  const db = connectDatabase(connectionString, server.kind, {
    poolSize: options.poolSize ?? 10,
    timeouts: SEEDING_TIMEOUTS,
    publicBaseUrl: DEFAULTS.publicBaseUrl,
  })
  return {
    db,
    connectionString,
    async close() {
      await db.close()
      await adminQuery(server.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    },
  }
}
