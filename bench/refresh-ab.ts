import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { checkoutOf, ROOT } from './checkout'
import { fmt } from './report'

/**
 * `npm run bench:refresh-ab -- --against <commit> [--pairs 6] [--tasks 10000]`: the refresh figure
 * of this checkout against an earlier commit's, on this machine's PostgreSQL, runs interleaved
 * (this, then that, `--pairs` times) so that both see the same host. The earlier commit is checked
 * out once into .tmp/ab-<commit> (a git worktree, with its own `npm ci`). Each run
 * (refresh-ab-run.ts, run inside each checkout) refreshes `--tasks` tasks, half FedEx and half
 * uParcel, on a fresh database with the bench's worker settings, and reports numbers per second
 * and what each side's CPU cost per 1,000 numbers: PostgreSQL's, the worker's. Loopback only.
 * How "the refresh figure does not drop more than 10 %" is measured (docs/performance.md).
 */

const args = new Map(process.argv.slice(2).flatMap((a, i, all) => (a.startsWith('--') ? [[a.slice(2), all[i + 1] ?? '']] : [])))
const against = args.get('against')
if (!against) throw new Error('usage: npm run bench:refresh-ab -- --against <commit> [--pairs 6] [--tasks 10000]')
const pairs = Number(args.get('pairs') ?? 6)
const tasks = Number(args.get('tasks') ?? 10_000)
const runner = join(ROOT, 'bench/refresh-ab-run.ts')
const { commit, dir: earlier } = checkoutOf(against)

interface Run {
  rate: number
  databaseMsPer1000: number
  workerMsPer1000: number
  walMB: number
}

function run(checkout: string): Run {
  const child = spawnSync(process.execPath, ['--import', 'tsx', runner], {
    cwd: checkout,
    env: { ...process.env, TASKS: String(tasks) },
    encoding: 'utf8',
    timeout: 600_000,
  })
  if (child.status !== 0) throw new Error(`the run in ${checkout} failed: ${child.stderr}`)
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Run
}

const results: Record<'now' | 'earlier', Run[]> = { now: [], earlier: [] }
for (let i = 0; i < pairs; i++) {
  results.now.push(run(ROOT))
  results.earlier.push(run(earlier))
  const [a, b] = [results.now.at(-1)!, results.earlier.at(-1)!]
  console.log(`pair ${i + 1}: now ${a.rate}/s, ${commit} ${b.rate}/s (${(a.rate / b.rate).toFixed(2)}×)`)
}
const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length
const line = (label: string, rs: Run[]) =>
  `| ${label} | ${fmt(mean(rs.map((r) => r.rate)))} (${fmt(Math.min(...rs.map((r) => r.rate)))}-${fmt(Math.max(...rs.map((r) => r.rate)))}) | ${fmt(mean(rs.map((r) => r.databaseMsPer1000)))} ms | ${fmt(mean(rs.map((r) => r.workerMsPer1000)))} ms | ${fmt(mean(rs.map((r) => r.walMB)))} MB |`
console.log(`\n| code | numbers/s, mean (range) of ${pairs} | PostgreSQL CPU per 1,000 | worker CPU per 1,000 | WAL per run |\n|---|---|---|---|---|`)
console.log(line('this checkout', results.now))
console.log(line(commit, results.earlier))
console.log(`\nratio of the means: ${(mean(results.now.map((r) => r.rate)) / mean(results.earlier.map((r) => r.rate))).toFixed(2)}×`)
