import { readFileSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { EmbeddedUnavailableError } from './binaries'

/**
 * Who runs the embedded PostgreSQL server. PostgreSQL refuses to run as root, so a service started
 * as root (containers, CI) runs the server as an existing unprivileged account, never one created
 * behind the operator's back: EMBEDDED_POSTGRES_USER when set, else the owner of an existing
 * cluster, else the `postgres` account when the system has one. Otherwise: a clear error.
 */
export interface ServerAccount {
  name: string
  uid: number
  gid: number
  /** False when the service itself runs as this account: nothing to switch to. */
  switchUser: boolean
}

interface PasswdEntry {
  name: string
  uid: number
  gid: number
}

function passwd(): PasswdEntry[] {
  try {
    return readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => line.split(':'))
      .map(([name, , uid, gid]) => ({ name: name!, uid: Number(uid), gid: Number(gid) }))
  } catch {
    return []
  }
}

export function serverAccount(clusterDir: string, env: NodeJS.ProcessEnv = process.env): ServerAccount {
  const uid = process.getuid?.()
  if (uid === undefined || uid !== 0) {
    return { name: env.USER ?? String(uid), uid: uid ?? -1, gid: process.getgid?.() ?? -1, switchUser: false }
  }
  const accounts = passwd()
  const wanted = env.EMBEDDED_POSTGRES_USER?.trim()
  if (wanted) {
    const account = accounts.find((a) => a.name === wanted)
    if (!account) throw new EmbeddedUnavailableError(`EMBEDDED_POSTGRES_USER is "${wanted}", and the system has no such account.`)
    if (account.uid === 0) throw new EmbeddedUnavailableError('EMBEDDED_POSTGRES_USER must be an unprivileged account: PostgreSQL refuses to run as root.')
    return { ...account, switchUser: true }
  }
  const owner = ownerOf(clusterDir)
  const existing = owner !== undefined && owner !== 0 ? accounts.find((a) => a.uid === owner) : undefined
  if (existing) return { ...existing, switchUser: true }
  const postgres = accounts.find((a) => a.name === 'postgres' && a.uid !== 0)
  if (postgres) return { ...postgres, switchUser: true }
  throw new EmbeddedUnavailableError(
    'The service runs as root, and PostgreSQL refuses to run as root. Run the service as a normal user, or set EMBEDDED_POSTGRES_USER to an existing unprivileged account that may own the embedded database.',
  )
}

function ownerOf(path: string): number | undefined {
  try {
    return statSync(path).uid
  } catch {
    return undefined
  }
}

/**
 * The first directory on the way to `path` (itself included) that `account` may not pass
 * through, judged by the mode bits (a conservative reading: supplementary groups are not known).
 */
export function blockedDirectory(path: string, account: ServerAccount): string | undefined {
  if (!account.switchUser) return undefined
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    const stat = statSync(dir)
    const bit = stat.uid === account.uid ? 0o100 : stat.gid === account.gid ? 0o010 : 0o001
    if ((stat.mode & bit) === 0) return dir
    if (dirname(dir) === dir) return undefined
  }
}
