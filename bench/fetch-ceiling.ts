import { FedexClient } from '../src/carriers/fedex/fedex.client'
import { UparcelClient } from '../src/carriers/uparcel/uparcel.client'

/**
 * The refresh ceiling, in a process of its own as the worker is: both adapters fetching from the
 * simulator as fast as they can, half the numbers at each carrier, in full requests (30 FedEx,
 * 50 uParcel), 16 requests in flight. Fetch only: nothing is stored. Prints numbers per second.
 * env: FEDEX_API_URL, UPARCEL_API_URL, SECONDS
 */
const seconds = Number(process.env.SECONDS ?? 5)
const fedex = new FedexClient({ baseUrl: process.env.FEDEX_API_URL!, clientId: 'c', clientSecret: 'c', timeoutMs: 5000 })
const uparcel = new UparcelClient({ baseUrl: process.env.UPARCEL_API_URL!, apiKey: 'k', secretKey: 's', timeoutMs: 5000 })
const counts = { FEDEX: 0, UPARCEL: 0 }
let k = 0
const until = Date.now() + seconds * 1000
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (Date.now() < until) {
      // Whichever carrier is behind gets the next request, so that the mix stays half and half.
      const [code, client] = counts.FEDEX <= counts.UPARCEL ? (['FEDEX', fedex] as const) : (['UPARCEL', uparcel] as const)
      const numbers = Array.from({ length: client.maxBatchSize }, () => `DLC${++k}`)
      // Awaited first: `counts[code] += await …` would read the count before the await.
      const answered = (await client.fetch(numbers)).size
      counts[code] += answered
    }
  }),
)
await Promise.all([fedex.close(), uparcel.close()])
console.log(JSON.stringify({ numbersPerSecond: (counts.FEDEX + counts.UPARCEL) / seconds }))
