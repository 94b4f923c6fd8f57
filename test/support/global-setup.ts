import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { connectDatabase } from '../../src/db/database'
import { startEmbeddedServer } from '../../src/db/embedded/embedded-server'
import { migrate } from '../../src/db/migrator'
import { DEFAULTS } from './config-defaults'

/**
 * Once per test run: the database server every test file's database lives on, and a template
 * database migrated once, which each file copies (CREATE DATABASE … TEMPLATE) instead of
 * migrating its own. The server is the machine's PostgreSQL at DATABASE_URL, or else an embedded
 * server started here exactly as the service starts one (fsync off: it holds nothing to keep).
 */

declare module 'vitest' {
  export interface ProvidedContext {
    testServer: { url: string; template: string; kind: 'embedded' | 'postgres' }
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let url = process.env.DATABASE_URL
  let stopServer = async () => {}
  if (!url) {
    const dataDir = mkdtempSync(join(tmpdir(), 'tracking-test-server-'))
    // The server runs as another account when the tests run as root: let it in.
    chmodSync(dataDir, 0o755)
    const server = await startEmbeddedServer({ dataDir, role: 'service', durable: false, maxConnections: 300 })
    url = server.connectionString
    stopServer = async () => {
      await server.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
  const template = `test_template_${process.pid}`
  await adminQuery(url, `DROP DATABASE IF EXISTS ${template}`)
  await adminQuery(url, `CREATE DATABASE ${template}`)
  const db = connectDatabase(databaseUrl(url, template), 'postgres', { poolSize: 1, publicBaseUrl: DEFAULTS.publicBaseUrl })
  await migrate(db)
  await db.close()
  project.provide('testServer', { url, template, kind: process.env.DATABASE_URL ? 'postgres' : 'embedded' })
  return async () => {
    await adminQuery(url, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`).catch(() => {})
    await stopServer()
  }
}

/** The same server's connection string, naming another database. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  return url.toString()
}

export async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}
