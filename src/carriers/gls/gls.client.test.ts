import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storyWalk } from '../../../test/support/story-walk'
import { GLS_REFUSED, GlsClient } from './gls.client'
import { GLS } from './gls.plugin'

// What is GLS's own beyond the stories every carrier walks (carrier-stories.test.ts): ten numbers
// a request with one token, its app refused (even as HTML), its daily quota, a wrong URL (served
// by a loopback server here; the simulator enforces the credentials given to it).
const credentials = { clientId: 'id-ok', clientSecret: 'secret-ok' }
const walker = storyWalk({ credentials: { [GLS.simulator.path]: credentials } })
let server: Server
let origin: string
let answer: (path: string) => { status: number; type?: string; body: string }

beforeAll(async () => {
  await walker.start()
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const { status, type = 'application/json', body } = answer(req.url ?? '')
    res.writeHead(status, { 'content-type': type })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await walker.stop()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const token = { status: 200, body: JSON.stringify({ token_type: 'Bearer', access_token: 't', expires_in: '14400' }) }
const client = (now = Date.now) => new GlsClient({ baseUrl: origin, ...credentials, timeoutMs: 1000 }, now)

describe('the GLS client', () => {
  it('asks for ten numbers in one request, with one token for all', async () => {
    const adapter = walker.adapter(GLS, credentials)
    const numbers = Array.from({ length: 10 }, (_, i) => GLS.simulator.storyNumber(i % 2 ? 'DL' : 'NF', 800 + i))
    const [tokens, tracks] = [walker.tokenRequests(GLS), walker.trackRequests(GLS)]
    const lookups = await adapter.fetch(numbers)
    await adapter.fetch(numbers)
    expect([walker.tokenRequests(GLS) - tokens, walker.trackRequests(GLS) - tracks]).toEqual([1, 2])
    expect(numbers.map((n) => lookups.get(n)?.found)).toEqual(numbers.map((_, i) => i % 2 === 1))
  })

  it('says an app GLS refuses is a configuration to check, even when the refusal is an HTML page', async () => {
    answer = (path) =>
      path.startsWith('/oauth2')
        ? token
        : { status: 401, type: 'text/html', body: '<html><head><title>Error</title></head><body>Authorization failed</body></html>' }
    await expect(client().fetch(['21569979615'])).rejects.toMatchObject({ failure: 'unauthorized', message: GLS_REFUSED })
  })

  it('waits until midnight UTC past its daily quota, and calls a 404 a wrong URL, not an unknown parcel', async () => {
    const now = Date.parse('2026-11-28T22:15:00Z')
    const quota = JSON.stringify({ fault: { faultstring: 'Rate limit quota violation.', detail: { errorcode: 'policies.ratelimit.QuotaViolation' } } })
    answer = (path) => (path.startsWith('/oauth2') ? token : { status: 429, body: quota })
    await expect(client(() => now).fetch(['21569979615'])).rejects.toMatchObject({ failure: 'rate_limited', retryAfterMs: 105 * 60_000 })
    answer = (path) => (path.startsWith('/oauth2') ? token : { status: 404, body: JSON.stringify({ title: 'Not Found', status: 404 }) })
    await expect(client().fetch(['21569979615'])).rejects.toMatchObject({ failure: 'bad_response' })
    answer = (path) => (path.startsWith('/oauth2') ? token : { status: 200, type: 'text/html', body: '<html>maintenance</html>' })
    await expect(client().fetch(['21569979615'])).rejects.toMatchObject({ failure: 'bad_response' })
  })
})
