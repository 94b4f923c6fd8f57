import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendMebibytes } from '../../../test/support/huge-answer'
import { CANADAPOST_REFUSED, CanadaPostClient } from './canadapost.client'

// What is Canada Post's own beyond the stories every carrier walks (carrier-stories.test.ts): its
// key as HTTP Basic, its messages whatever the HTTP status, and the XML a broken or hostile
// gateway gives, served by a loopback server.
const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/carriers/canadapost/${name}`, import.meta.url), 'utf8')
const PIN = '1371134583769923'
let server: Server
let origin: string
let answer: (res: ServerResponse) => void = (res) => res.end()
const asked: IncomingMessage[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req)
    answer(res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const client = (timeoutMs = 1000) => new CanadaPostClient({ baseUrl: origin, username: 'user', password: 'pass', timeoutMs })
const xml =
  (status: number, body: string, type = 'application/vnd.cpc.track-v2+xml') =>
  (res: ServerResponse) => {
    res.writeHead(status, { 'content-type': type })
    res.end(body)
  }

describe('the Canada Post client', () => {
  it('asks for one PIN with its key as HTTP Basic, in English, and reads the XML', async () => {
    answer = xml(200, fixture('response-delivered-official-en.xml'))
    const lookups = await client().fetch([PIN])
    expect(lookups.get(PIN)).toMatchObject({ found: true, snapshot: { standardStatus: 'delivered' } })
    const request = asked.at(-1)!
    expect([request.url, request.headers.authorization, request.headers['accept-language']]).toEqual([
      `/vis/track/pin/${PIN}/detail`,
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
      'en-CA',
    ])
  })

  it('reads 004 as not found and E002 as a refused key, whatever the HTTP status', async () => {
    for (const status of [200, 404]) {
      answer = xml(status, fixture('response-not-found-004.xml'))
      expect((await client().fetch([PIN])).get(PIN)).toEqual({ found: false, reason: '004' })
    }
    const refused = JSON.parse(fixture('error-responses.json')).any_auth_E002.body as string
    for (const status of [200, 401]) {
      answer = xml(status, refused)
      await expect(client().fetch([PIN])).rejects.toMatchObject({ failure: 'unauthorized', message: CANADAPOST_REFUSED })
    }
  })

  it.each([
    ['truncated XML', 200, fixture('response-delivered-official-en.xml').slice(0, 900), 'bad_response'],
    ['a 200 with an HTML page', 200, '<html><body><h1>Service Unavailable</h1></body></html>', 'bad_response'],
    ['another PIN’s detail', 200, fixture('response-official-example-karrio.xml'), 'bad_response'],
    ['a 503 without a body', 503, '', 'server_error'],
  ])('ends the fetch cleanly on %s', async (_what, status, body, failure) => {
    answer = xml(status, body)
    await expect(client().fetch([PIN])).rejects.toMatchObject({ failure })
  })

  it('refuses 100 MB and a body that never ends, without holding the process', async () => {
    answer = (res) => sendMebibytes(res, 100, 'application/xml')
    await expect(client(5000).fetch([PIN])).rejects.toMatchObject({ failure: 'bad_response', message: expect.stringContaining('16 MiB') })
    answer = (res) => res.writeHead(200, { 'content-type': 'application/xml' })
    await expect(client(300).fetch([PIN])).rejects.toMatchObject({ failure: 'timeout' })
  })
})
