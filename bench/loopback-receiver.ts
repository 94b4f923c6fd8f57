import { createServer } from 'node:http'

/** A webhook receiver in this process that answers every request 200: its URL, and how to close it. */
export async function startReceiver() {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200).end('ok'))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, close: () => server.close() }
}
