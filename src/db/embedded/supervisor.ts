import { statfsSync } from 'node:fs'
import pg from 'pg'
import { isAlive, readPostmaster } from './postmaster'
import { connectionString, sleep, type ServerControl } from './server-control'

export type EmbeddedRole = 'service' | 'tool'

export interface EmbeddedLog {
  info(message: string): void
  warn(message: string): void
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

const OWNER_LOCK: [number, number] = [7210, 1]
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

/** Starts, adopts, watches and stops the server (embedded-server.ts says who owns it and when). */
export class Supervisor {
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
