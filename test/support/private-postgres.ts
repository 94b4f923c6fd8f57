import { execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serverProcesses } from './server-processes'
import { freePort } from './service-process'

/**
 * A PostgreSQL cluster of the test's own (initdb into a temp directory, on a free loopback port),
 * so a test can stop, kill and restart it without touching the machine's shared server. Runs the
 * server binaries as the postgres user when the test runs as root.
 */
export interface PrivatePostgres {
  url: string
  port: number
  /** The cluster's data directory. */
  dataDir: string
  restart(): void
  /** SIGKILL of the postmaster (a crash, an OOM kill), waiting until every server process is gone. */
  kill(): Promise<void>
  /** Starts it, unless it runs (it may have recovered by itself). */
  start(): void
  stop(): void
}

function binary(name: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort()
  return `/usr/lib/postgresql/${versions.at(-1)}/bin/${name}`
}

/** `parent`: where the cluster lives (a small file system, to fill); a temp directory by default. */
export async function startPrivatePostgres(options: { parent?: string; fsync?: boolean } = {}): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(options.parent ?? tmpdir(), 'private-pg-'))
  const port = await freePort()
  const asRoot = process.getuid?.() === 0
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'])), Number(execFileSync('id', ['-g', 'postgres'])))
  const run = (name: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : binary(name), asRoot ? ['-u', 'postgres', '--', binary(name), ...args] : args, { stdio: 'pipe' })
  const data = join(dir, 'data')
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'])
  const options_ = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.fsync ? 'on' : 'off'}`
  const pgCtl = (...args: string[]) => run('pg_ctl', ['-D', data, '-o', options_, '-l', join(dir, 'log'), '-w', ...args])
  pgCtl('start')
  const postmasterPid = () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir: data,
    restart: () => pgCtl('restart', '-m', 'fast'),
    async kill() {
      const pid = postmasterPid()
      process.kill(pid, 'SIGKILL')
      // The backends notice their postmaster's death and exit; a new server cannot start while
      // one of them still holds the old shared memory.
      // (The postmaster itself until it is reaped: a zombie's pid in postmaster.pid still blocks a start.)
      for (let waited = 0; serverProcesses(data).length > 0 || existsSync(`/proc/${pid}`); waited += 20) {
        if (waited > 10_000) throw new Error(`server processes outlived their postmaster: ${serverProcesses(data).join(', ')}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    start() {
      try {
        pgCtl('status')
      } catch {
        pgCtl('start')
      }
    },
    stop() {
      try {
        pgCtl('stop', '-m', 'immediate')
      } catch {
        // already down
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}
