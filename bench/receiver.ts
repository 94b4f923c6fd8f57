import { createServer } from 'node:http'

/**
 * A webhook receiver in a process of its own (the burst figure): answers 200 at once, and notes
 * when the first webhook about each tracking number arrived. GET /_count gives {numbers} (how many
 * numbers were heard of: cheap enough to poll through the burst); GET /_stats gives
 * {count, arrivals: {trackingNumber: epochMs}} (a megabyte at the end of a burst: read it once). The port
 * is printed on stdout.
 */
const arrivals = new Map<string, number>()
let count = 0

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/_count') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ numbers: arrivals.size }))
    return
  }
  if (req.method === 'GET' && req.url === '/_stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count, arrivals: Object.fromEntries(arrivals) }))
    return
  }
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    const at = Date.now()
    count++
    try {
      const number = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { trackingNumber?: string } }).data?.trackingNumber
      if (number && !arrivals.has(number)) arrivals.set(number, at)
    } catch {
      // not a webhook: counted all the same
    }
    res.writeHead(200).end('ok')
  })
})
server.keepAliveTimeout = 30_000
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as { port: number }).port })))
