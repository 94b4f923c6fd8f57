// `npm start`: runs src/main/server.ts in this process, with no build command. The service's own
// TypeScript is bundled by esbuild (a few tens of milliseconds) into one module beside
// node_modules, and imported: the same code tsx would run, without loader hooks in front of the
// ~900 modules a start loads, which took 0.45 s of a 1.25 s start on Node 20.
import { build, stop } from 'esbuild'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))
const entry = process.argv[2] ?? join(root, 'src/main/server.ts')
// The entry point sees the arguments it would see run directly: [node, entry, ...its own].
process.argv.splice(1, process.argv[2] ? 2 : 1, entry)
// Inside the project, so that the bundle's package imports resolve to its node_modules; one file
// per process, so that processes starting together never share one.
const outfile = join(root, 'node_modules/.cache/tracking-subscriptions', `${process.pid}-${Date.now()}.mjs`)
mkdirSync(dirname(outfile), { recursive: true })

await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'inline',
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
await stop()
process.setSourceMapsEnabled(true)
try {
  await import(pathToFileURL(outfile).href)
} finally {
  // Loaded: the file is no longer needed.
  rmSync(outfile, { force: true })
}
