import type { ServiceProcess } from '../test/support/service-process'
import { warmLoad } from './load'
import { fmt, type Row } from './report'

/**
 * The list: a first page (20 tasks) at 50 connections over one user's `tasks`, for the default
 * sort and for each single filter, with values a user would give (a random number, reference or
 * one-day window on every request).
 */
export async function listFigures(
  kind: string,
  service: ServiceProcess,
  token: string,
  tasks: number,
  userId: number,
  ceilingPort: number,
  row: Row,
  seconds: number,
): Promise<void> {
  const big = `Q10000-`
  const pick = (n: number) => 1 + Math.floor(Math.random() * n)
  const day = (column: 'created' | 'updated') => {
    // Seeded a minute apart (changed half a minute apart), going back from now.
    const minutesAgo = (2_000_000 - pick(tasks - 10_000)) / (column === 'created' ? 1 : 2)
    const from = new Date(Date.now() - minutesAgo * 60_000)
    return `${column}From=${from.toISOString()}&${column}To=${new Date(from.getTime() + 86_400_000).toISOString()}`
  }
  const scenarios: [string, () => string][] = [
    ['the default sort (-createdAt)', () => ''],
    ['sort=-updatedAt', () => 'sort=-updatedAt'],
    ['standardStatus=exception (2 %)', () => 'standardStatus=exception'],
    ['standardStatus=in_transit,pending (21 %)', () => 'standardStatus=in_transit,pending'],
    ['milestone=out_for_delivery (3 %)', () => 'milestone=out_for_delivery'],
    ['carrierCode=UPARCEL (40 %)', () => 'carrierCode=UPARCEL'],
    ['trackingNumber (one task)', () => `trackingNumber=${big}${pick(tasks - 10_000)}`],
    ['externalReferenceNo (one task)', () => `externalReferenceNo=${big}order-${2 * pick((tasks - 10_000) / 2)}`],
    ['active=true (23 %)', () => 'active=true'],
    ['active=false (77 %)', () => 'active=false'],
    ['a day of createdFrom/createdTo', () => day('created')],
    ['a day of updatedFrom/updatedTo', () => day('updated')],
  ]
  const auth = { authorization: `Bearer ${token}` }
  const path = (query: () => string) => () => `/openapi/tracking-subscriptions/list?${query()}`
  // The ceiling: the same page's rows read by a bare route (no auth, no validation, no document,
  // no cursor) at the same concurrency. At 50 connections a closed loop's latency is 50 ÷ its
  // throughput, so the ceiling's p99 is the least this host can show for the target.
  const ceiling = await warmLoad({
    url: `http://127.0.0.1:${ceilingPort}`,
    connections: 50,
    seconds: Math.max(2, seconds / 2),
    path: () => `/page?user=${userId}`,
  })
  const against = `${fmt(ceiling.requestsPerSecond)} req/s, p99 ${ceiling.p99Ms} ms`
  for (const [name, query] of scenarios) {
    const result = await warmLoad({ url: service.baseUrl, connections: 50, seconds: Math.max(2, seconds / 2), headers: auth, path: path(query) })
    row(
      kind,
      `list a page, ${fmt(tasks)} tasks: ${name}`,
      `${fmt(result.requestsPerSecond)} req/s, p99 ${result.p99Ms} ms`,
      against,
      `${(result.requestsPerSecond / ceiling.requestsPerSecond).toFixed(2)}×`,
      'p99 < 20 ms',
    )
    if (result.non2xx + result.errors > 0) console.log(`  (list ${name}: ${result.non2xx} non-2xx, ${result.errors} errors)`)
  }
}
