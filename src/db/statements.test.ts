import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { QUERIES_DIR, statementFiles } from '../../scripts/statement-files'

// Every statement the service runs is readable in review as plain SQL (src/db/queries/), and the
// files say what the code runs: a statement changed in the code and not written out again, or
// written inline at a call site where no file can show it, fails here.

const SRC = fileURLToPath(new URL('../', import.meta.url))
// The driver's own transaction control and the embedded server's supervision are plumbing, not
// statements of the service's.
const PLUMBING = ['db/database.ts', 'db/embedded/']
const CONTROL = /^(BEGIN|COMMIT|ROLLBACK)$/

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** The SQL written as a literal at a `query(…)` or `queryWithin(…, …)` call, with where it is. */
function inlineStatements(): string[] {
  const found: string[] = []
  for (const path of sourceFiles(SRC)) {
    const file = relative(SRC, path)
    if (PLUMBING.some((p) => file.startsWith(p))) continue
    const text = readFileSync(path, 'utf8')
    const call = /\.query(Within)?\b[^(;]*\(\s*(?:\/\/[^\n]*\n\s*)*(?:[\w.]+,\s*)?([`'"])/g
    for (let m = call.exec(text); m; m = call.exec(text)) {
      if (m[1] && !text.slice(m.index, call.lastIndex).includes(',')) continue
      const start = call.lastIndex
      const end = text.indexOf(m[2]!, start)
      const literal = text.slice(start, end)
      if (!CONTROL.test(literal)) found.push(`${file}: ${literal.slice(0, 60)}`)
    }
  }
  return found
}

describe('the statements', () => {
  it('are each in src/db/queries/, as the code has them (npm run queries writes them)', async () => {
    const files = await statementFiles()
    const written = new Map(
      readdirSync(QUERIES_DIR)
        .filter((f) => f.endsWith('.sql'))
        .map((f) => [f, readFileSync(join(QUERIES_DIR, f), 'utf8')]),
    )
    expect([...written.keys()].sort(), 'run npm run queries').toEqual([...files.keys()].sort())
    for (const [file, text] of files) expect(written.get(file), `${file}: run npm run queries`).toBe(text)
  })

  it('are never written inline at a call site, where no file shows them', () => {
    expect(inlineStatements()).toEqual([])
  })
})
