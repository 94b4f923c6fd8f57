import { execFileSync } from 'node:child_process'
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './service-process'

/**
 * A PostgreSQL cluster of the test's own (initdb into a temp directory, on a free loopback port),
 * so a test can stop and restart it without touching the machine's shared server. Runs the
 * server binaries as the postgres user when the test runs as root.
 */
export interface PrivatePostgres {
  url: string
  restart(): void
  stop(): void
}

function binary(name: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort()
  return `/usr/lib/postgresql/${versions.at(-1)}/bin/${name}`
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'private-pg-'))
  const port = await freePort()
  const asRoot = process.getuid?.() === 0
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'])), Number(execFileSync('id', ['-g', 'postgres'])))
  const run = (name: string, args: string[]) => execFileSync(asRoot ? 'runuser' : binary(name), asRoot ? ['-u', 'postgres', '--', binary(name), ...args] : args, { stdio: 'pipe' })
  const data = join(dir, 'data')
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`
  const pgCtl = (...args: string[]) => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', ...args])
  pgCtl('start')
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    restart: () => pgCtl('restart', '-m', 'fast'),
    stop() {
      try {
        pgCtl('stop', '-m', 'immediate')
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}
