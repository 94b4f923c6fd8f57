import { ticks } from './cpu'
import { load, type LoadResult } from './load'
import { type Row, fmt } from './report'

/**
 * The subscribe figure: single subscribes at 50 connections against the ceiling (a bare Fastify
 * route doing one `pg` upsert into a minimal table, bench/ceiling-server.ts), in slices that take
 * turns (service, ceiling, service, …) after two unmeasured seconds of each, so that the host's
 * drift within a minute hits both alike. Each pair's ratio is shown, and where the two cores went
 * during each side's slices: the service's process, the ceiling's, the database's and the load
 * generator's (this process, autocannon).
 */

export const SLICES = 5

export interface SubscribeSetup {
  kind: string
  /** What the figure is called in the table: which role the service ran in. */
  label: string
  serviceUrl: string
  headers: Record<string, string>
  servicePid: number
  ceilingUrl: string
  ceilingPid: number
  /** CPU ticks of the database's processes so far (PostgreSQL's every process; the embedded server's). */
  databaseTicks: () => number
  seconds: number
  target: string
  row: Row
  /** Numbers are made unique across every load of the run. */
  prefix: string
  /** Where the tasks' webhooks go (a host that does not exist when none is given). */
  callbackUrl?: string
  /**
   * Before each slice, the work the service's own workers were left with is let finish (ROLE=all:
   * the new tasks fetched, their webhooks delivered), so that no slice carries it; resolves to the seconds it took.
   */
  settle?: () => Promise<number>
}

interface Side {
  rate: number[]
  p99: number[]
  failed: number
  /** Cores busy, summed over the side's slices: its own process, the other side's, the database, the load generator. */
  cores: { own: number; other: number; database: number; generator: number }
  elapsed: number
  /** Seconds waited before its slices for the workers' backlog. */
  settled: number
}

export interface SubscribeResult {
  ratio: number
  service: number
  ceiling: number
}

const newSide = (): Side => ({ rate: [], p99: [], failed: 0, cores: { own: 0, other: 0, database: 0, generator: 0 }, elapsed: 0, settled: 0 })
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length

export async function subscribeSlices(setup: SubscribeSetup): Promise<SubscribeResult> {
  let n = 0
  const body = () =>
    JSON.stringify({ carrierCode: 'FEDEX', trackingNumber: `${setup.prefix}${++n}`, callbackUrl: setup.callbackUrl ?? 'https://shop.example/hook' })
  const targets = {
    service: { url: setup.serviceUrl, headers: setup.headers, pid: setup.servicePid, other: setup.ceilingPid },
    ceiling: { url: setup.ceilingUrl, headers: { 'content-type': 'application/json' }, pid: setup.ceilingPid, other: setup.servicePid },
  }
  const sliceSeconds = Math.max(2, setup.seconds / 2)
  const run = async (which: keyof typeof targets, seconds: number, side?: Side) => {
    const target = targets[which]
    const settled = setup.settle ? await setup.settle() : 0
    if (side) side.settled += settled
    const before = { own: ticks(target.pid), other: ticks(target.other), database: setup.databaseTicks(), generator: process.cpuUsage(), at: performance.now() }
    const result: LoadResult = await load({ url: target.url, method: 'POST', connections: 50, seconds, headers: target.headers, body })
    if (!side) return
    const generator = process.cpuUsage(before.generator)
    side.rate.push(result.requestsPerSecond)
    side.p99.push(result.p99Ms)
    side.failed += result.non2xx + result.errors
    side.elapsed += (performance.now() - before.at) / 1000
    side.cores.own += (ticks(target.pid) - before.own) / 100
    side.cores.other += (ticks(target.other) - before.other) / 100
    side.cores.database += (setup.databaseTicks() - before.database) / 100
    side.cores.generator += (generator.user + generator.system) / 1e6
  }
  // Unmeasured: the JIT's first moments on both sides.
  await run('service', 2)
  await run('ceiling', 2)
  const service = newSide()
  const ceiling = newSide()
  for (let i = 0; i < SLICES; i++) {
    await run('service', sliceSeconds, service)
    await run('ceiling', sliceSeconds, ceiling)
  }
  const [s, c] = [mean(service.rate), mean(ceiling.rate)]
  const pairs = service.rate.map((rate, i) => (rate / ceiling.rate[i]!).toFixed(2))
  const busy = (side: Side) => {
    const per = (x: number) => (x / side.elapsed).toFixed(2)
    return { own: per(side.cores.own), other: per(side.cores.other), database: per(side.cores.database), generator: per(side.cores.generator) }
  }
  const [sb, cb] = [busy(service), busy(ceiling)]
  const { kind, label, row } = setup
  row(kind, `subscribe req/s (50 conn), ${label}`, fmt(s), fmt(c), `${(s / c).toFixed(2)}×`, setup.target)
  row(kind, `  ${label}: ${SLICES} pairs of ${sliceSeconds} s slices, ratio of each`, pairs.join(', '), '', '', '')
  row(
    kind,
    `  ${label}: cores busy, service's slices / ceiling's`,
    `service ${sb.own} / ${cb.other}, database ${sb.database} / ${cb.database}, load generator ${sb.generator} / ${cb.generator}`,
    `ceiling ${sb.other} / ${cb.own}`,
    '',
    '',
  )
  row(kind, `  ${label}: p99, mean of the slices`, `${fmt(mean(service.p99))} ms`, `${fmt(mean(ceiling.p99))} ms`, '', '')
  if (setup.settle) {
    row(
      kind,
      `  ${label}: the workers' backlog worked off before each slice, mean (after the service's slices / the ceiling's)`,
      `${(ceiling.settled / SLICES).toFixed(1)} s / ${(service.settled / SLICES).toFixed(1)} s`,
      '',
      '',
      '',
    )
  }
  if (service.failed + ceiling.failed > 0) console.log(`  (subscribe: service ${service.failed}, ceiling ${ceiling.failed} non-2xx or errors)`)
  return { ratio: s / c, service: s, ceiling: c }
}
