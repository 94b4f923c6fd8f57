import { execFile } from 'node:child_process'
import { appendFileSync, chownSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { PostgresBinaries } from './binaries'
import { isAlive, readPostmaster } from './postmaster'
import type { ServerAccount } from './server-account'

/** The cluster's directory under DATA_DIR. */
export const CLUSTER = 'postgresql'
const SETTINGS_FILE = 'tracking.conf'
// The socket's file name is .s.PGSQL.<port>; with no TCP listener the port names nothing else.
export const SOCKET_PORT = 5432
const START_TIMEOUT_S = 300

/** initdb, pg_ctl and the settings file, run as the server's account. */
export class ServerControl {
  constructor(
    private readonly binaries: PostgresBinaries,
    private readonly account: ServerAccount,
    readonly clusterDir: string,
  ) {}

  async init(durable: boolean): Promise<void> {
    // Into a side directory, renamed when complete: an initdb cut short leaves no half cluster.
    const partial = `${this.clusterDir}.partial`
    rmSync(partial, { recursive: true, force: true })
    mkdirSync(partial, { mode: 0o700 })
    this.own(partial)
    await this.run(this.binaries.initdb, [
      '-D',
      partial,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-instructions',
      ...(durable ? [] : ['--no-sync']),
    ])
    appendFileSync(
      join(partial, 'postgresql.conf'),
      `\n# The embedded service's own settings, rewritten at every start.\ninclude_if_exists = '${SETTINGS_FILE}'\n`,
    )
    renameSync(partial, this.clusterDir)
  }

  /** The settings the service chooses (docs/architecture.md explains each), read at the server's start. */
  writeSettings(settings: { socketDir: string; durable: boolean; maxConnections: number }): void {
    const durable = settings.durable ? 'on' : 'off'
    const path = join(this.clusterDir, SETTINGS_FILE)
    writeFileSync(
      path,
      [
        '# Written by the tracking service at every start of its embedded server; edits are overwritten.',
        "listen_addresses = ''",
        `port = ${SOCKET_PORT}`,
        `unix_socket_directories = '${settings.socketDir.replaceAll("'", "''")}'`,
        `max_connections = ${settings.maxConnections}`,
        'shared_buffers = 32MB',
        'work_mem = 4MB',
        'maintenance_work_mem = 32MB',
        'huge_pages = off',
        "io_method = 'sync'",
        'max_wal_size = 256MB',
        `fsync = ${durable}`,
        `synchronous_commit = ${durable}`,
        `full_page_writes = ${durable}`,
        'autovacuum = on',
        "timezone = 'UTC'",
        "log_timezone = 'UTC'",
        'log_min_messages = warning',
        'log_checkpoints = off',
        '',
      ].join('\n'),
      { mode: 0o600 },
    )
    this.own(path)
  }

  async start(): Promise<void> {
    await this.run(this.binaries.pgCtl, ['start', '-D', this.clusterDir, '-w', '-t', String(START_TIMEOUT_S), '-s', '-l', join(this.clusterDir, 'server.log')])
  }

  /** Fast shutdown: sessions are ended, a checkpoint written, and the server exits. */
  async stop(): Promise<void> {
    const postmaster = readPostmaster(this.clusterDir)
    await this.run(this.binaries.pgCtl, ['stop', '-D', this.clusterDir, '-m', 'fast', '-w', '-t', '60', '-s'])
    // pg_ctl returns once the pid file is gone, a moment before the process itself is.
    for (let waited = 0; postmaster && isAlive(postmaster.pid) && waited < 10_000; waited += 20) await sleep(20)
  }

  /** The end of the server's log, to explain a failed start. */
  logTail(): string {
    try {
      return readFileSync(join(this.clusterDir, 'server.log'), 'utf8').trim().split('\n').slice(-5).join('\n')
    } catch {
      return ''
    }
  }

  private own(path: string): void {
    if (this.account.switchUser) chownSync(path, this.account.uid, this.account.gid)
  }

  private run(file: string, args: string[]): Promise<void> {
    const { switchUser, uid, gid } = this.account
    return new Promise((resolveRun, reject) => {
      execFile(
        file,
        args,
        { ...(switchUser ? { uid, gid } : {}), env: { ...process.env, LC_ALL: 'C', LANG: 'C' }, timeout: (START_TIMEOUT_S + 10) * 1000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${file.split('/').at(-1)} ${args[0]} failed: ${(stderr || stdout || error.message).trim()}`)) : resolveRun(),
      )
    })
  }
}

/** The connection string of a server listening on `socketDir`. */
export function connectionString(socketDir: string, port: number): string {
  // The host name is a placeholder the host parameter overrides: a URL needs one to be parsed.
  return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&port=${port}`
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
