// `npm start`: runs src/main/server.ts in this process, with no build command. The service's own
// TypeScript is bundled by esbuild into a few modules beside node_modules and imported: the same
// code tsx would run, without loader hooks in front of the ~900 modules a start loads, which took
// 0.45 s of a 1.25 s start on Node 20. The bundle is kept and used again while none of the files
// it was built from has changed (a build took about 0.4 s of a start).
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))
const entry = process.argv[2] ?? join(root, 'src/main/server.ts')
// The entry point sees the arguments it would see run directly: [node, entry, ...its own].
process.argv.splice(1, process.argv[2] ? 2 : 1, entry)
// Inside the project, so that the bundle's package imports resolve to its node_modules.
const cache = join(root, 'node_modules/.cache/tracking-subscriptions')
const name = createHash('sha256').update(relative(root, entry)).digest('hex').slice(0, 16)
const manifestFile = join(cache, `${name}.json`)

/** The bundle's directory when every file it was built from is as it was then. */
function builtBefore() {
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'))
    for (const [file, size, mtimeMs] of manifest.inputs) {
      const stat = statSync(join(root, file))
      if (stat.size !== size || stat.mtimeMs !== mtimeMs) return undefined
    }
    statSync(join(cache, manifest.dir, 'entry.mjs'))
    return manifest.dir
  } catch {
    return undefined
  }
}

async function build() {
  const esbuild = await import('esbuild')
  const startedAt = Date.now()
  // A directory of this process's own, renamed into place: processes starting together never
  // write into one another's bundle, and none reads a half-written one.
  const dir = `${name}-${process.pid}-${startedAt}`
  const result = await esbuild.build({
    entryPoints: { entry },
    absWorkingDir: root,
    outdir: join(cache, dir),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // The modules a start imports late (src/main/server.ts) become files of their own.
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    // Beside the bundle, read only under `node --enable-source-maps` (NODE_OPTIONS): parsed and
    // kept by every process, the map cost about 30 MiB of the service's memory.
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [
      {
        // Each module keeps its own import.meta.url (migrations are read beside the migrator).
        name: 'file-import-meta-url',
        setup(bundler) {
          bundler.onLoad({ filter: /\.ts$/ }, (args) => ({
            contents: readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
            loader: 'ts',
          }))
        },
      },
    ],
  })
  // esbuild's service process would otherwise stay for the process's life: about 30 MiB of PSS.
  await esbuild.stop()
  // The files it was built from, as paths from the project's root (absWorkingDir).
  /** @type {[string, number, number][]} */
  const inputs = Object.keys(result.metafile.inputs).map((file) => {
    const stat = statSync(join(root, file))
    return [file, stat.size, stat.mtimeMs]
  })
  // A file saved while the build read it may not be in the bundle as saved: the next start builds again.
  if (inputs.every(([, , mtimeMs]) => mtimeMs < startedAt)) {
    const own = join(cache, `${name}.${process.pid}.json`)
    writeFileSync(own, JSON.stringify({ dir, inputs }))
    renameSync(own, manifestFile)
  }
  removeOlderBundles(dir)
  return dir
}

/**
 * Bundles of this entry other than `current`, once a day old: a process started from one may
 * still import its late modules.
 * @param {string} current
 */
function removeOlderBundles(current) {
  for (const other of readdirSync(cache)) {
    if (!other.startsWith(`${name}-`) || other === current) continue
    const path = join(cache, other)
    // Another process starting meanwhile may remove it first.
    const builtAt = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()
    if (Date.now() - builtAt > 86_400_000) rmSync(path, { recursive: true, force: true })
  }
}

mkdirSync(cache, { recursive: true })
const dir = builtBefore() ?? (await build())
await import(pathToFileURL(join(cache, dir, 'entry.mjs')).href)
