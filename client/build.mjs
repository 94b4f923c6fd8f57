// Builds the package twice from src/: ESM (dist/esm) and CommonJS (dist/cjs, marked as such by its
// own package.json), with declarations beside each. Run by `npm install` (prepare).
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const here = new URL('.', import.meta.url).pathname
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
rmSync(`${here}dist`, { recursive: true, force: true })
for (const project of ['tsconfig.esm.json', 'tsconfig.cjs.json']) {
  try {
    execFileSync(process.execPath, [tsc, '-p', `${here}${project}`], { stdio: 'inherit' })
  } catch {
    process.exit(1) // tsc has said why
  }
}
mkdirSync(`${here}dist/cjs`, { recursive: true })
writeFileSync(`${here}dist/cjs/package.json`, '{ "type": "commonjs" }\n')
