import pg from 'pg'
import { request } from 'undici'
import type { ServiceProcess } from '../test/support/service-process'
import { pss, tree } from './memory'
import { fmt, type Row } from './report'

/**
 * CSV in and out (docs/api.md, "CSV"):
 * - the export of one user's `tasks` tasks, streamed, in tasks/s, against the same rows in the
 *   same order read by one cursor (pg alone, nothing written): target ≥ 0.5×; and the service's memory while it streams (PSS of its processes,
 *   sampled every 100 ms, its growth over the idle one): target < 50 MB;
 * - an import of 10,000 rows against the batch endpoint given the same parcels in batches of 100
 *   one after another (the import writes through the batch path): target ≥ 0.8×.
 */
export async function csvFigures(
  kind: string,
  service: ServiceProcess,
  token: string,
  tasks: number,
  userId: number,
  dbUrl: () => string,
  row: Row,
): Promise<void> {
  const auth = { authorization: `Bearer ${token}` }
  const pids = () => tree(service.process.pid!)
  const idle = pids().reduce((sum, pid) => sum + pss(pid), 0)
  let peak = idle
  const sampler = setInterval(
    () =>
      (peak = Math.max(
        peak,
        pids().reduce((sum, pid) => sum + pss(pid), 0),
      )),
    100,
  )
  // Twice: the first export also pays for the code's first run; the second is the figure.
  let exportSeconds = 0
  let exported = 0
  for (const run of ['first', 'second']) {
    const started = Date.now()
    const answer = await request(`${service.baseUrl}/openapi/tracking-subscriptions/export`, { headers: auth, bodyTimeout: 600_000, headersTimeout: 600_000 })
    let lines = 0
    for await (const chunk of answer.body) lines += countLines(chunk as Buffer)
    exportSeconds = (Date.now() - started) / 1000
    exported = lines - 1
    console.log(`  (export, ${run}: ${exported} rows in ${exportSeconds.toFixed(1)} s, PSS ${idle.toFixed(0)} → peak ${peak.toFixed(0)} MiB)`)
  }
  clearInterval(sampler)

  const client = new pg.Client({ connectionString: dbUrl() })
  await client.connect()
  // The ceiling: the same rows in the same order read by one cursor, 1,000 a fetch (no per-page
  // statement, no document, nothing written): what reading them costs at the least.
  const started = Date.now()
  let read = 0
  await client.query('BEGIN')
  await client.query(
    `DECLARE export_ceiling NO SCROLL CURSOR FOR
       SELECT t.id, t.created_at, t.carrier_code, t.tracking_number, t.external_reference_no, t.callback_url, t.standard_status, t.milestone,
              t.carrier_status, t.estimated_delivery_at, t.destination_address, t.stopped_at, t.updated_at
         FROM tracking_tasks t WHERE t.user_id = ${Number(userId)} ORDER BY t.created_at DESC, t.id DESC`,
  )
  for (;;) {
    const { rows } = await client.query('FETCH 1000 FROM export_ceiling')
    read += rows.length
    if (rows.length < 1000) break
  }
  await client.query('COMMIT')
  const ceilingSeconds = (Date.now() - started) / 1000
  const [rate, ceiling] = [exported / exportSeconds, read / ceilingSeconds]
  row(kind, `export ${fmt(tasks)} tasks as CSV: tasks/s`, fmt(rate), `${fmt(ceiling)} (one cursor, 1,000 a fetch)`, `${(rate / ceiling).toFixed(2)}×`, '≥ 0.5×')
  row(kind, `  the service's memory while it streams (PSS growth)`, `${(peak - idle).toFixed(0)} MiB`, '', '', '< 50 MB')
  if (exported !== tasks) console.log(`  (the export gave ${exported} rows of ${tasks})`)

  // The import against the batch endpoint, on fresh parcels each (a reused task costs less): a
  // small round of each first (their code's first run), then two pairs, alternating.
  const parcels = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => ({ carrierCode: 'FEDEX', trackingNumber: `${prefix}${i}`, callbackUrl: 'https://shop.example/hook' }))
  const run = Date.now().toString(36)
  const importRows = async (prefix: string, count: number) => {
    const csv = ['carrierCode,trackingNumber,callbackUrl', ...parcels(prefix, count).map((p) => `${p.carrierCode},${p.trackingNumber},${p.callbackUrl}`)].join(
      '\n',
    )
    const started = Date.now()
    const imported = await request(`${service.baseUrl}/openapi/tracking-subscriptions/import`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/csv' },
      body: csv,
      bodyTimeout: 600_000,
      headersTimeout: 600_000,
    })
    const body = (await imported.body.json()) as { data: { results: { result: string }[] } }
    return { rate: count / ((Date.now() - started) / 1000), created: body.data.results.filter((r) => r.result === 'created').length }
  }
  const batchRows = async (prefix: string, count: number) => {
    const batches = parcels(prefix, count)
    const started = Date.now()
    for (let i = 0; i < batches.length; i += 100) {
      const answer = await request(`${service.baseUrl}/openapi/tracking-subscriptions/batch`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ items: batches.slice(i, i + 100) }),
      })
      await answer.body.dump()
    }
    return count / ((Date.now() - started) / 1000)
  }
  await importRows(`CSVW${run}-`, 1_000)
  await batchRows(`CSVX${run}-`, 1_000)
  const pairs: [number, number][] = []
  let created = 0
  for (const pair of [1, 2]) {
    const imported = await importRows(`CSVI${run}-${pair}-`, 10_000)
    created += imported.created
    pairs.push([imported.rate, await batchRows(`CSVB${run}-${pair}-`, 10_000)])
  }
  const importRate = pairs.reduce((sum, [i]) => sum + i, 0) / pairs.length
  const batchRate = pairs.reduce((sum, [, b]) => sum + b, 0) / pairs.length
  row(
    kind,
    'import 10,000 CSV rows: rows/s',
    fmt(importRate),
    `${fmt(batchRate)} (the batch endpoint, 100 a batch, one after another; pairs ${pairs.map(([i, b]) => (i / b).toFixed(2)).join(', ')})`,
    `${(importRate / batchRate).toFixed(2)}×`,
    '≥ 0.8×',
  )
  if (created !== 20_000) console.log(`  (the imports created ${created} of 20,000)`)
  await client.end()
}

/** Line breaks in a chunk of the answer. */
function countLines(chunk: Buffer): number {
  let lines = 0
  for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) lines++
  return lines
}
