import { chmodSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { tempDataDir } from '../../../test/support/run-database'
import { waitFor } from '../../../test/support/wait-for'
import { EmbeddedUnavailableError, findBinaries } from './binaries'
import { DataDirInUseError, runningServerUrl, startEmbeddedServer, type EmbeddedServer } from './embedded-server'
import { isAlive, readPostmaster } from './postmaster'
import { blockedDirectory, serverAccount } from './server-account'

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))
function dataDir(): string {
  const dir = tempDataDir()
  dirs.push(dir)
  return dir
}

async function select(url: string, sql: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  // A server shut down while this client is idle (the restart under test) is an 'error' event, not a failure of the query.
  client.on('error', () => {})
  await client.connect()
  try {
    return (await client.query(sql)).rows[0]
  } finally {
    await client.end()
  }
}

describe('the embedded PostgreSQL server', () => {
  it('runs durably, on a Unix socket only, with the footprint it is given', async () => {
    const server = await startEmbeddedServer({ dataDir: dataDir(), role: 'service' })
    try {
      const settings = await select(
        server.connectionString,
        `SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sync, current_setting('autovacuum') AS autovacuum,
                current_setting('listen_addresses') AS listen, current_setting('shared_buffers') AS buffers, current_setting('max_connections') AS max,
                current_setting('server_version_num')::int >= 180000 AS v18`,
      )
      expect(settings).toEqual({ fsync: 'on', sync: 'on', autovacuum: 'on', listen: '', buffers: '32MB', max: '50', v18: true })
    } finally {
      await server.stop()
    }
  })

  it('starts its server again when it is killed, and serves on the same data', async () => {
    const dir = dataDir()
    const server = await startEmbeddedServer({ dataDir: dir, role: 'service' })
    try {
      await select(server.connectionString, 'CREATE TABLE kept AS SELECT 42 AS answer')
      const killed = readPostmaster(join(dir, 'postgresql'))!.pid
      expect(server.outage()).toBeUndefined()
      process.kill(killed, 'SIGKILL')
      // Meanwhile it says what happened (for /readyz), and says nothing once it serves again.
      expect(await waitFor(() => server.outage(), { what: 'the outage to be noticed' })).toMatch(
        /^the embedded PostgreSQL server is being started again \(since .*\): it went away/,
      )
      const back = await waitFor(() => (runningServerUrl(dir) && readPostmaster(join(dir, 'postgresql'))!.pid !== killed ? runningServerUrl(dir) : undefined), {
        timeoutMs: 30_000,
        what: 'a new postmaster',
      })
      expect(await waitFor(() => select(back, 'SELECT answer FROM kept'), { timeoutMs: 30_000, what: 'the data after the restart' })).toEqual({ answer: 42 })
      await waitFor(() => server.outage() === undefined, { timeoutMs: 30_000, what: 'the outage to end' })
    } finally {
      await server.stop()
    }
  })

  it('stopped while it brings a killed server back, leaves no server running', async () => {
    const dir = dataDir()
    const warnings: string[] = []
    const server = await startEmbeddedServer({ dataDir: dir, role: 'service', log: { info() {}, warn: (m) => warnings.push(m) } })
    process.kill(readPostmaster(join(dir, 'postgresql'))!.pid, 'SIGKILL')
    await waitFor(() => warnings.some((m) => m.includes('starting it again')), { intervalMs: 5, what: 'the server to be noticed gone' })
    await server.stop()
    const left = readPostmaster(join(dir, 'postgresql'))
    expect(left && isAlive(left.pid)).toBeFalsy()
  })

  it('lets a tool use the running server without stopping it, and refuses a second service', async () => {
    const dir = dataDir()
    const server = await startEmbeddedServer({ dataDir: dir, role: 'service' })
    let tool: EmbeddedServer | undefined
    try {
      tool = await startEmbeddedServer({ dataDir: dir, role: 'tool' })
      expect(await select(tool.connectionString, 'SELECT 1 AS one')).toEqual({ one: 1 })
      await tool.stop()
      expect(isAlive(readPostmaster(join(dir, 'postgresql'))!.pid)).toBe(true)
      await expect(startEmbeddedServer({ dataDir: dir, role: 'service' })).rejects.toThrow(DataDirInUseError)
    } finally {
      await server.stop()
    }
    expect(readPostmaster(join(dir, 'postgresql'))).toBeUndefined()
  })

  it('says what to do on a platform without binaries', () => {
    expect(() => findBinaries('win32-x64')).toThrow(EmbeddedUnavailableError)
    expect(() => findBinaries('linux-riscv64')).toThrow(/Set DATABASE_URL to a PostgreSQL server/)
  })

  it.runIf(process.getuid?.() === 0)('run as root: chooses an unprivileged account, and says which directory it may not enter', () => {
    const dir = dataDir()
    const account = serverAccount(join(dir, 'postgresql'))
    expect(account.uid).not.toBe(0)
    expect(account.switchUser).toBe(true)
    const closed = join(dir, 'closed')
    mkdirSync(join(closed, 'inner'), { recursive: true })
    chmodSync(closed, 0o700)
    expect(blockedDirectory(join(closed, 'inner'), account)).toBe(closed)
    expect(blockedDirectory(dir, account)).toBeUndefined()
    expect(() => serverAccount(join(dir, 'postgresql'), { EMBEDDED_POSTGRES_USER: 'root' })).toThrow(/unprivileged/)
    expect(() => serverAccount(join(dir, 'postgresql'), { EMBEDDED_POSTGRES_USER: 'no-such-account' })).toThrow(/no such account/)
  })
})
