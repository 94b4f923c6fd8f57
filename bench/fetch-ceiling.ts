import type { CarrierAdapter } from '../src/carriers/carrier'
import { carrierOf } from '../src/carriers/registry'

/**
 * A refresh ceiling, in a process of its own as the worker is: carrier adapters fetching from the
 * simulator as fast as they can, in full requests, 16 requests in flight. Fetch only: nothing is
 * stored. Prints numbers per second.
 * env: CARRIERS (comma-separated codes, the requests spread evenly over them), each carrier's API
 * URL variable pointing at the simulator, SECONDS.
 */
const seconds = Number(process.env.SECONDS ?? 5)
const adapters: [string, CarrierAdapter][] = (process.env.CARRIERS ?? 'FEDEX,UPARCEL').split(',').map((code) => {
  const carrier = carrierOf(code)!
  const credentials = Object.fromEntries(Object.keys(carrier.env.credentials).map((field) => [field, 'ceiling']))
  return [code, carrier.createAdapter({ baseUrl: process.env[carrier.env.apiUrl.variable]!, credentials, timeoutMs: 5000 })]
})
const counts = new Map(adapters.map(([code]) => [code, 0]))
let k = 0
const until = Date.now() + seconds * 1000
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (Date.now() < until) {
      // Whichever carrier is behind gets the next request, so that the mix stays even.
      const [code, adapter] = adapters.reduce((behind, next) => (counts.get(next[0])! < counts.get(behind[0])! ? next : behind))
      // Numbers of a length every carrier takes (La Poste refuses fewer than 11 characters).
      const numbers = Array.from({ length: adapter.maxBatchSize }, () => `DLC${String(++k).padStart(10, '0')}`)
      // Awaited first: `counts[code] += await …` would read the count before the await.
      const answered = (await adapter.fetch(numbers)).size
      counts.set(code, counts.get(code)! + answered)
    }
  }),
)
await Promise.all(adapters.map(([, adapter]) => adapter.close()))
console.log(JSON.stringify({ numbersPerSecond: [...counts.values()].reduce((a, b) => a + b, 0) / seconds }))
