import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendMebibytes } from '../../../test/support/huge-answer'
import { storyWalk } from '../../../test/support/story-walk'
import { LaPosteClient } from './laposte.client'
import { LAPOSTE } from './laposte.plugin'

// What is La Poste's own beyond the stories every carrier walks (carrier-stories.test.ts): ten
// numbers a request, its key, its quota's minute, and answers a hostile or broken gateway gives
// (served by a loopback server here; the simulator enforces the key given to it).
const walker = storyWalk({ credentials: { [LAPOSTE.simulator.path]: { apiKey: 'key-ok' } } })
let server: Server
let origin: string
let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()
const asked: string[] = []

beforeAll(async () => {
  await walker.start()
  server = createServer((req, res) => {
    asked.push(req.url ?? '')
    answer(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await walker.stop()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const client = (timeoutMs = 1000, now = Date.now) => new LaPosteClient({ baseUrl: origin, apiKey: 'key-ok', timeoutMs }, now)
const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(JSON.stringify(body))
  }

describe('the La Poste client', () => {
  it('asks for ten numbers in one request, joined by commas, with its key, in French', async () => {
    const numbers = Array.from({ length: 10 }, (_, i) => LAPOSTE.simulator.storyNumber(i % 2 ? 'DL' : 'NF', 700 + i))
    const before = walker.trackRequests(LAPOSTE)
    const lookups = await walker.adapter(LAPOSTE, { apiKey: 'key-ok' }).fetch(numbers)
    expect(walker.trackRequests(LAPOSTE) - before).toBe(1)
    expect(numbers.map((n) => lookups.get(n)?.found)).toEqual(numbers.map((_, i) => i % 2 === 1))

    answer = json(200, [])
    await client()
      .fetch(['EW112720413FR', '6Y11138937441'])
      .catch(() => {})
    expect(asked.at(-1)).toBe('/suivi/v2/idships/EW112720413FR,6Y11138937441?lang=fr_FR')
  })

  it('says a refused key is the key, naming the variable', async () => {
    await expect(walker.adapter(LAPOSTE, { apiKey: 'wrong' }).fetch(['EW112720413FR'])).rejects.toMatchObject({
      failure: 'unauthorized',
      message: expect.stringContaining('LAPOSTE_API_KEY'),
    })
  })

  it('waits for the next minute after a 429 without Retry-After (the gateway’s body), and for its Retry-After when it gives one', async () => {
    const now = Date.parse('2026-11-28T22:15:30.250Z')
    answer = json(429, { code: 'TOO_MANY_REQUESTS', message: 'max quota reached (100 calls per 1s)' })
    await expect(client(1000, () => now).fetch(['EW112720413FR'])).rejects.toMatchObject({ failure: 'rate_limited', retryAfterMs: 29_750 })
    answer = json(429, { code: 'TOO_MANY_REQUESTS' }, { 'retry-after': '5' })
    await expect(client(1000, () => now).fetch(['EW112720413FR'])).rejects.toMatchObject({ failure: 'rate_limited', retryAfterMs: 5000 })
  })

  it.each([
    ['a 200 with an HTML error page', 200, '<html><body>Service indisponible</body></html>', 'bad_response'],
    ['truncated JSON', 200, '[{"lang":"fr_FR","returnCode":200,"shipment":{"idShip":"EW1', 'bad_response'],
    ['a 404 of the gateway, not an envelope', 404, '<html>Not Found</html>', 'bad_response'],
    ['a 502 of the gateway', 502, '', 'server_error'],
  ])('ends the fetch cleanly on %s', async (_what, status, body, failure) => {
    answer = (_req, res) => {
      res.writeHead(status, { 'content-type': status === 200 && body.startsWith('<') ? 'text/html' : 'application/json' })
      res.end(body)
    }
    await expect(client().fetch(['EW112720413FR'])).rejects.toMatchObject({ failure })
  })

  it('gives no number the shipment of another: an answer for a number not asked is no answer', async () => {
    answer = json(200, [{ lang: 'fr_FR', scope: 'open', returnCode: 200, shipment: { idShip: '6Y11138937441', event: [] } }])
    await expect(client().fetch(['EW112720413FR'])).rejects.toMatchObject({ failure: 'bad_response' })
    // Asked for two, answered for one: the other is left for the next fetch.
    answer = json(200, [{ lang: 'fr_FR', scope: 'open', returnCode: 404, idShip: 'EW112720413FR' }])
    const lookups = await client().fetch(['EW112720413FR', 'CB819093788FR'])
    expect([...lookups.keys()]).toEqual(['EW112720413FR'])
  })

  it('refuses an answer over 16 MiB, and one that never ends, without holding the process', async () => {
    answer = (_req, res) => sendMebibytes(res, 100, 'application/json')
    await expect(client(5000).fetch(['EW112720413FR'])).rejects.toMatchObject({ failure: 'bad_response', message: expect.stringContaining('16 MiB') })
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' })
    await expect(client(300).fetch(['EW112720413FR'])).rejects.toMatchObject({ failure: 'timeout' })
  })
})
