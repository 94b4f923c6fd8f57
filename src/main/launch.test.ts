import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runEntry } from '../../test/support/service-process'

// An entry of its own inside the project (the launcher bundles what lies under its root), with a
// module it imports late, as src/main/server.ts does.
const ROOT = join(import.meta.dirname, '../..')
const DIR = join(ROOT, 'node_modules/.cache', `launch-test-${process.pid}`)
const ENTRY = join(DIR, 'entry.ts')
const LATE = join(DIR, 'late.ts')
const CACHE = join(ROOT, 'node_modules/.cache/tracking-subscriptions')

/** The bundles this test made, removed after it with their manifest. */
const made: string[] = []
// No cache yet on a fresh clone until the first bundle is made.
const bundles = () => new Set(existsSync(CACHE) ? readdirSync(CACHE).filter((name) => !name.endsWith('.json')) : [])
const run = async () => {
  const before = bundles()
  const result = await runEntry(ENTRY, ['an', 'argument'], {})
  expect(result.stderr).toBe('')
  expect(result.code).toBe(0)
  const built = [...bundles()].filter((name) => !before.has(name))
  made.push(...built)
  return { output: result.stdout.trim(), built }
}

describe('npm start launcher', () => {
  afterAll(() => {
    rmSync(DIR, { recursive: true, force: true })
    for (const name of made) {
      rmSync(join(CACHE, name), { recursive: true, force: true })
      rmSync(join(CACHE, `${name.split('-')[0]}.json`), { force: true })
    }
  })

  it('bundles an entry once and runs that bundle again until a file it was built from changes', async () => {
    mkdirSync(DIR, { recursive: true })
    writeFileSync(ENTRY, "const { late } = await import('./late')\nconsole.log(late(), process.argv.slice(2).join(' '))\n")
    writeFileSync(LATE, "export const late = () => 'first'\n")
    // Written a moment ago: a file saved while a build reads it is never taken as built.
    const past = new Date(Date.now() - 10_000)
    utimesSync(ENTRY, past, past)
    utimesSync(LATE, past, past)

    const first = await run()
    expect(first.output).toBe('first an argument')
    expect(first.built).toHaveLength(1)

    const again = await run()
    expect(again.output).toBe('first an argument')
    expect(again.built).toHaveLength(0)

    // A module imported late changes: the next start builds again and runs the change.
    writeFileSync(LATE, "export const late = () => 'second'\n")
    utimesSync(LATE, past, new Date(Date.now() - 5_000))
    const changed = await run()
    expect(changed.output).toBe('second an argument')
    expect(changed.built).toHaveLength(1)
  })
})
