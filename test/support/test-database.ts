import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { Database, createPool } from '../../src/db/database'
import { migrate } from '../../src/db/migrator'
import { openDatabase } from '../../src/db/open-database'

/**
 * A database of its own for one test file: a fresh database on the PostgreSQL at DATABASE_URL
 * when it is set (created here, dropped at the end), otherwise an in-memory embedded PGlite in its
 * worker thread. Migrated either way. Nothing is mocked.
 */
export interface TestDatabase {
  db: Database
  /** The connection string, for spawning processes on the same database (PostgreSQL only). */
  connectionString: string | undefined
  close(): Promise<void>
}

export const onPostgres = Boolean(process.env.DATABASE_URL)

export async function createTestDatabase(options: { poolSize?: number } = {}): Promise<TestDatabase> {
  const poolSize = options.poolSize ?? 10
  const baseUrl = process.env.DATABASE_URL
  if (!baseUrl) {
    const db = await openDatabase({ databaseUrl: undefined, dataDir: undefined, poolSize })
    await migrate(db)
    return { db, connectionString: undefined, close: () => db.close() }
  }
  const name = `test_${Date.now()}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  const connectionString = url.toString()
  const db = new Database(createPool(connectionString, poolSize), 'postgres')
  await migrate(db)
  return {
    db,
    connectionString,
    async close() {
      await db.close()
      const dropper = new pg.Client({ connectionString: baseUrl })
      await dropper.connect()
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await dropper.end()
    },
  }
}
