import { readFileSync, readdirSync, readlinkSync } from 'node:fs'

/** Pids of a PostgreSQL server's processes (postmaster, backends, helpers): they all work in its data directory. */
export function serverProcesses(clusterDir: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === clusterDir && !/\) Z /.test(readFileSync(`/proc/${entry}/stat`, 'utf8'))) pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

/** Stops (SIGSTOP) or continues (SIGCONT) every process of a server: a server that hangs, as on a stalled disk or a paused machine. */
export function signalServer(clusterDir: string, signal: 'SIGSTOP' | 'SIGCONT'): number {
  const signalled = new Set<number>()
  // Twice: a backend forked while the first pass ran is caught by the second.
  for (let pass = 0; pass < 2; pass++) {
    for (const pid of serverProcesses(clusterDir)) {
      if (signalled.has(pid)) continue
      signalled.add(pid)
      try {
        process.kill(pid, signal)
      } catch {
        // exited meanwhile
      }
    }
  }
  return signalled.size
}
