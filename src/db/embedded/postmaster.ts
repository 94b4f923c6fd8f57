import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * What `postmaster.pid` says about a running server: PostgreSQL writes it at start and removes it
 * at a clean stop. Its lines: pid, data directory, start time, port, socket directory, listen
 * address, shared memory key, status.
 */
export interface Postmaster {
  pid: number
  port: number
  socketDir: string
}

export function readPostmaster(clusterDir: string): Postmaster | undefined {
  let lines: string[]
  try {
    lines = readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')
  } catch {
    return undefined
  }
  const pid = Number(lines[0])
  const port = Number(lines[3])
  const socketDir = lines[4]?.trim() ?? ''
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !socketDir) return undefined
  return { pid, port, socketDir }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: alive, and another user's (the server account's, seen from a normal user).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  // An exited server whose parent has not reaped it yet (pg_ctl leaves it to init) is a zombie.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return true // no /proc (macOS): kill's answer stands
  }
}
