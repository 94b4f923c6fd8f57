import { randomBytes } from 'node:crypto'
import type pg from 'pg'
import type { ServiceProcess } from '../test/support/service-process'
import { warmLoad } from './load'
import { fmt, type Row } from './report'

/**
 * The public tracking page over one user's `tasks`: random tasks' pages at 50
 * connections, HTML and the JSON twin, against the bare query's ceiling; and an unknown token's
 * 404 beside a page (the same lookup, so about the same time).
 */
export async function pageFigures(
  kind: string,
  service: ServiceProcess,
  client: pg.Client,
  userId: number,
  tasks: number,
  ceilingPort: number,
  row: Row,
  seconds: number,
): Promise<void> {
  await client.query(
    `INSERT INTO tracking_page_brands (user_id, display_name, accent_color, support_url, show_reference, default_language)
     VALUES ($1, 'Bench shop', '#7a3e00', 'https://shop.example/help', true, 'de') ON CONFLICT (user_id) DO NOTHING`,
    [userId],
  )
  const { rows } = await client.query<{ token: string }>(
    'SELECT page_token AS token FROM tracking_tasks TABLESAMPLE SYSTEM (1) WHERE user_id = $1 LIMIT 20000',
    [userId],
  )
  const tokens = rows.map((r) => r.token)
  const random = () => tokens[Math.floor(Math.random() * tokens.length)]!
  const ceiling = await warmLoad({ url: `http://127.0.0.1:${ceilingPort}`, connections: 50, seconds: seconds, path: () => `/tracking-page?token=${random()}` })
  const label = `${fmt(tasks)} tasks`
  for (const [name, headers] of [
    ['HTML', { accept: 'text/html' }],
    ['JSON twin', { accept: 'application/json' }],
  ] as const) {
    const result = await warmLoad({ url: service.baseUrl, connections: 50, seconds: seconds, headers, path: () => `/t/${random()}` })
    if (result.non2xx > 0) throw new Error(`tracking page (${name}): ${result.non2xx} answers were not 2xx`)
    row(
      kind,
      `tracking page (${name}), ${label}, 50 conn`,
      `${fmt(result.requestsPerSecond)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`,
      `${fmt(ceiling.requestsPerSecond)} req/s, p99 ${ceiling.p99Ms} ms (the bare query)`,
      `${(result.requestsPerSecond / ceiling.requestsPerSecond).toFixed(2)}×`,
      'p99 < 50 ms',
    )
  }
  // One connection each, so that the times are the requests' own, not the queue's.
  const found = await warmLoad({ url: service.baseUrl, connections: 1, seconds: Math.min(seconds, 5), path: () => `/t/${random()}` })
  const unknown = await warmLoad({
    url: service.baseUrl,
    connections: 1,
    seconds: Math.min(seconds, 5),
    path: () => `/t/${randomBytes(24).toString('base64url')}`,
  })
  row(
    kind,
    `tracking page: an unknown token's 404 beside a page, one connection`,
    `404 p50 ${unknown.p50Ms} ms, p99 ${unknown.p99Ms} ms`,
    `page p50 ${found.p50Ms} ms, p99 ${found.p99Ms} ms`,
    '',
    'the same lookup either way',
  )
}
