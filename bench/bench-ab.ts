import { spawnSync } from 'node:child_process'
import { checkoutOf, ROOT } from './checkout'

/**
 * `npm run bench:ab -- --against <commit> [--pairs 2] -- <npm run bench's arguments>`: the figures
 * of `npm run bench` of this checkout against an earlier commit's, each checkout running its own
 * bench (its own service, its own harness), the runs interleaved (this, that, that, this, …:
 * ABBA, so that a drift of the host hits both alike), on this machine. Prints each figure's
 * values and ratios side by side: compare each figure's ratio to its ceiling, measured in the same
 * run, and its value against its partner's.
 */

const all = process.argv.slice(2)
const split = all.indexOf('--')
const own = split < 0 ? all : all.slice(0, split)
const benchArgs = split < 0 ? [] : all.slice(split + 1)
const args = new Map(own.flatMap((a, i, list) => (a.startsWith('--') ? [[a.slice(2), list[i + 1] ?? '']] : [])))
const against = args.get('against')
if (!against) throw new Error('usage: npm run bench:ab -- --against <commit> [--pairs 2] -- <bench arguments>')
const pairs = Number(args.get('pairs') ?? 2)
const { commit, dir: earlier } = checkoutOf(against)

/** The table rows a bench run printed: database, figure, value, ceiling, ratio, target. */
function run(checkout: string): string[][] {
  const child = spawnSync('npx', ['tsx', 'bench/run.ts', ...benchArgs], { cwd: checkout, encoding: 'utf8', timeout: 3_600_000 })
  if (child.status !== 0) throw new Error(`the bench in ${checkout} failed: ${child.stderr}`)
  return child.stdout
    .split('\n')
    .filter((line) => /^\| (postgres|embedded) \|/.test(line))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    )
}

const results: Record<'now' | 'earlier', string[][][]> = { now: [], earlier: [] }
for (let i = 0; i < pairs; i++) {
  const order: ('now' | 'earlier')[] = i % 2 === 0 ? ['now', 'earlier'] : ['earlier', 'now']
  for (const side of order) {
    results[side].push(run(side === 'now' ? ROOT : earlier))
    console.log(`run ${i + 1}: ${side === 'now' ? 'this checkout' : commit} done`)
  }
}

const key = (row: string[]) => `${row[0]} | ${row[1]}`
const figures = [...new Set(results.now.flat().map(key))]
console.log(`\n| database | figure | this checkout: value (ratio), each run | ${commit}: value (ratio), each run |\n|---|---|---|---|`)
for (const figure of figures) {
  const cells = (side: 'now' | 'earlier') =>
    results[side]
      .map((rows) => rows.find((row) => key(row) === figure))
      .map((row) => (row ? `${row[2]}${row[4] ? ` (${row[4]})` : ''}` : '–'))
      .join('; ')
  console.log(`| ${figure} | ${cells('now')} | ${cells('earlier')} |`)
}
