import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/**
 * An exclusive lock on an embedded data directory. PGlite does not stop two processes from
 * opening one directory (the second one's writes are silently lost), so the service does.
 *
 * The lock is a file created with O_EXCL holding the owner's pid and, once the database is up,
 * the port of its Postgres-protocol socket, so that `npm run admin` and `npm run migrate` can
 * talk to a running service instead of opening the directory a second time. A lock whose pid is
 * no longer alive (a crash, a SIGKILL) is stale and taken over.
 */

export interface LockInfo {
  pid: number
  port?: number
  startedAt: string
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockInfo,
  ) {
    super(
      `The data directory ${dataDir} is in use by another process (pid ${holder.pid}, started ${holder.startedAt}). ` +
        `Stop that process first, or point DATA_DIR at another directory.`,
    )
    this.name = 'DataDirLockedError'
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function lockPath(dataDir: string): string {
  return join(dataDir, 'service.lock')
}

/** The live holder of the directory's lock, if any. */
export function readLock(dataDir: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(lockPath(dataDir), 'utf8')) as LockInfo
    return typeof info.pid === 'number' && isAlive(info.pid) ? info : undefined
  } catch {
    return undefined
  }
}

// Locks this process holds: a lock file with our own pid that is not in here was left by an
// earlier process that had the same pid (pid 1 in a container restarted after a crash).
const heldHere = new Set<string>()

export class DataDirLock {
  private constructor(
    private readonly path: string,
    private info: LockInfo,
  ) {}

  static acquire(dataDir: string): DataDirLock {
    mkdirSync(dataDir, { recursive: true })
    const path = lockPath(dataDir)
    const info: LockInfo = { pid: process.pid, startedAt: new Date().toISOString() }
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(path, 'wx', 0o600)
        writeSync(fd, JSON.stringify(info))
        closeSync(fd)
        heldHere.add(path)
        return new DataDirLock(path, info)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        const holder = readLock(dataDir)
        if (holder && (holder.pid !== process.pid || heldHere.has(path))) throw new DataDirLockedError(dataDir, holder)
        // Stale (its process is gone) or unreadable (a crash mid-write): take it over.
        rmSync(path, { force: true })
      }
    }
    throw new Error(`could not lock ${dataDir}`)
  }

  /** Records the socket port so that the CLI can reach the running database. */
  publishPort(port: number): void {
    this.info = { ...this.info, port }
    writeFileSync(this.path, JSON.stringify(this.info), { mode: 0o600 })
  }

  release(): void {
    heldHere.delete(this.path)
    rmSync(this.path, { force: true })
  }
}
