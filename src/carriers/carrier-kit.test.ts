import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CachedToken } from './cached-token'
import { CarrierHttp } from './carrier-http'
import { clientCredentials, credentialsBasic, credentialsForm, credentialsJson } from './oauth'
import { untilWindowEnds } from './quota'

// The carrier client kit over real HTTP on loopback: a server that answers each path as the test
// says, and records what it was asked.
let server: Server
let origin: string
const asked: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[] = []
let answer: (path: string, n: number) => { status: number; body?: unknown; headers?: Record<string, string> } = () => ({ status: 200, body: {} })

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      asked.push({ method: request.method!, path: request.url!, headers: request.headers, body })
      const { status, body: json, headers } = answer(request.url!, asked.filter((a) => a.path === request.url).length)
      response.writeHead(status, { 'content-type': 'application/json', ...headers })
      response.end(json === undefined ? '' : JSON.stringify(json))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const http = (options: Partial<ConstructorParameters<typeof CarrierHttp>[0]> = {}) =>
  new CarrierHttp({ carrier: 'Kit', baseUrl: origin, timeoutMs: 2000, ...options })

describe('the carrier client kit', () => {
  it('puts every path under the base URL once, whatever slashes either has', async () => {
    answer = () => ({ status: 200, body: { ok: true } })
    for (const [base, path] of [
      [origin, '/track'],
      [`${origin}/`, '/track'],
      [`${origin}//`, 'track'],
      [`${origin}/api/`, '/v1/track?x=1'],
      [`${origin}/api`, 'v1/track?x=1'],
    ] as const) {
      const client = http({ baseUrl: base })
      await client.get(path, { headers: {} })
      await client.close()
    }
    expect(asked.splice(0).map((a) => a.path)).toEqual(['/track', '/track', '/track', '/api/v1/track?x=1', '/api/v1/track?x=1'])
  })

  it("reads a 429 by the carrier's quota window: its Retry-After, else the window's end (the next hour, midnight UTC)", () => {
    const now = Date.parse('2026-11-28T22:15:30Z')
    const at = (quota: 'second' | 'hour' | 'day', retryAfterMs?: number) => http({ quota, now: () => now }).failure({ status: 429, retryAfterMs }).retryAfterMs
    expect(at('second')).toBeUndefined()
    expect(at('hour')).toBe(Date.parse('2026-11-28T23:00:00Z') - now)
    expect(at('day')).toBe(Date.parse('2026-11-29T00:00:00Z') - now)
    expect(at('day', 5000)).toBe(5000)
    expect(untilWindowEnds('second', 1_500)).toBe(500)
    expect(http().failure({ status: 503, retryAfterMs: 2000 })).toMatchObject({ failure: 'server_error', retryAfterMs: 2000 })
    expect(http().failure({ status: 403, retryAfterMs: undefined })).toMatchObject({ failure: 'unauthorized' })
    expect(http().failure({ status: 418, retryAfterMs: undefined }, 'Kit OAuth')).toMatchObject({
      failure: 'bad_response',
      message: 'Kit OAuth answered HTTP 418',
    })
  })

  it("asks for a client-credentials token in each carrier's way and reads its lifetime, a number or a string", async () => {
    const client = http()
    const lifetimes: number[] = []
    for (const [request, expiresIn] of [
      [credentialsForm('id', 'secret'), 3599],
      [credentialsBasic('id', 'secret'), '14399'],
      [credentialsJson('id', 'secret'), undefined],
    ] as const) {
      answer = () => ({ status: 200, body: { access_token: 'tok', expires_in: expiresIn, scope: 'tracking' } })
      const token = await clientCredentials(client, 'Kit OAuth', { path: '/oauth', ...request }, 60)
      expect(token).toMatchObject({ value: 'tok', answer: { scope: 'tracking' } })
      lifetimes.push(token.lifetimeMs)
    }
    expect(lifetimes).toEqual([3_599_000, 14_399_000, 60_000])
    const [form, basic, json] = asked.splice(0)
    expect(new URLSearchParams(form!.body).get('client_secret')).toBe('secret')
    expect(basic!.headers.authorization).toBe(`Basic ${Buffer.from('id:secret').toString('base64')}`)
    expect(JSON.parse(json!.body)).toMatchObject({ grant_type: 'client_credentials', client_id: 'id' })
    answer = () => ({ status: 200, body: { token_type: 'bearer' } })
    await expect(clientCredentials(client, 'Kit OAuth', { path: '/oauth', ...credentialsForm('id', 's') }, 60)).rejects.toMatchObject({
      failure: 'bad_response',
      message: 'Kit OAuth answer has no access_token',
    })
    answer = () => ({ status: 401, body: {} })
    await expect(clientCredentials(client, 'Kit OAuth', { path: '/oauth', ...credentialsForm('id', 's') }, 60)).rejects.toMatchObject({
      failure: 'unauthorized',
    })
    await client.close()
  })

  it('renews a refused token once and calls again; a second refusal is the answer', async () => {
    asked.splice(0)
    const client = http()
    let tokensMade = 0
    const token = new CachedToken(async () => ({ value: `t${++tokensMade}`, lifetimeMs: 3_600_000 }))
    const call = (value: string) => client.get('/track', { headers: { authorization: `Bearer ${value}` } })
    // The first token is refused once, then the renewed one is taken.
    answer = (_path, n) => ({ status: n === 1 ? 401 : 200, body: {} })
    expect((await token.authorized(call)).status).toBe(200)
    expect(asked.splice(0).map((a) => a.headers.authorization)).toEqual(['Bearer t1', 'Bearer t2'])
    // Kept afterwards: no renewal while it is taken.
    answer = () => ({ status: 200, body: {} })
    await token.authorized(call)
    expect(tokensMade).toBe(2)
    // Refused twice: one renewal, and the 401 is what the client judges.
    answer = () => ({ status: 401, body: {} })
    expect((await token.authorized(call)).status).toBe(401)
    expect(tokensMade).toBe(3)
    asked.splice(0)
    await client.close()
  })
})
