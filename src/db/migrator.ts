import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Database } from './database'
import { syncEventsView } from './events-view'

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

/** Applies the pending migrations; returns the ones it applied. */
export async function migrate(db: Database, migrations = loadMigrations(), log?: (message: string) => void): Promise<Migration[]> {
  const client = await db.pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`)
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version))
    const applied: Migration[] = []
    for (const migration of migrations) {
      if (done.has(migration.version)) continue
      await client.query('BEGIN')
      try {
        await client.query(migration.sql)
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name])
        await client.query('COMMIT')
      } catch (error) {
        await client.query('ROLLBACK')
        throw new Error(`migration ${migration.version}_${migration.name} failed: ${(error as Error).message}`)
      }
      applied.push(migration)
    }
    await syncEventsView(client, log)
    return applied
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {})
    client.release()
  }
}
