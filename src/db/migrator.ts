import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Database } from './database'
import { syncEventsView } from './events-view'
import { statementsOf } from './statements'

/**
 * Versioned SQL migrations (src/db/migrations/NNNN_name.sql), applied in order, each in its own
 * transaction, and recorded in schema_migrations; then the data derived from a definition in the
 * code (the events view, events-view.ts) is rebuilt if that definition changed. An advisory lock
 * makes concurrent starts of several processes on one PostgreSQL do each of these exactly once.
 */

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url))
const MIGRATION_LOCK_KEY = 7_210_443_512

export interface Migration {
  version: number
  name: string
  sql: string
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), name: file.slice(5, -4), sql: readFileSync(`${dir}/${file}`, 'utf8') }))
}

/** Applies the pending migrations; returns the ones it applied. No deadline: a migration may take minutes. */
export async function migrate(db: Database, migrations = loadMigrations(), log?: (message: string) => void): Promise<Migration[]> {
  return db.maintenance(async (client) => {
    await client.query(MIGRATION_LOCK, [MIGRATION_LOCK_KEY])
    try {
      await client.query(MIGRATIONS_TABLE_CREATE)
      const done = new Set((await client.query<{ version: number }>(MIGRATIONS_APPLIED)).rows.map((r) => r.version))
      const applied: Migration[] = []
      for (const migration of migrations) {
        if (done.has(migration.version)) continue
        await client.query('BEGIN')
        try {
          await client.query(migration.sql)
          await client.query(MIGRATION_RECORD, [migration.version, migration.name])
          await client.query('COMMIT')
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {})
          throw new Error(`migration ${migration.version}_${migration.name} failed: ${(error as Error).message}`)
        }
        applied.push(migration)
      }
      await syncEventsView(client, log)
      return applied
    } finally {
      await client.query(MIGRATION_UNLOCK, [MIGRATION_LOCK_KEY]).catch(() => {})
    }
  })
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const MIGRATION_LOCK = sql('migration_lock', 'SELECT pg_advisory_lock($1)')
const MIGRATIONS_TABLE_CREATE = sql(
  'migrations_table_create',
  `CREATE TABLE IF NOT EXISTS schema_migrations (
version    integer PRIMARY KEY,
name       text NOT NULL,
applied_at timestamptz NOT NULL DEFAULT now()
)`,
)
const MIGRATIONS_APPLIED = sql('migrations_applied', 'SELECT version FROM schema_migrations')
const MIGRATION_RECORD = sql('migration_record', 'INSERT INTO schema_migrations (version, name) VALUES ($1, $2)')
const MIGRATION_UNLOCK = sql('migration_unlock', 'SELECT pg_advisory_unlock($1)')
