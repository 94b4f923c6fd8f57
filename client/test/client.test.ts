import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// The package as its users get it: built by npm install (dist/esm here, dist/cjs below).
import { createClient, TrackingApiError, verifyWebhook, WebhookVerificationError, type TrackingClient } from '@tracking-subscriptions/client'
import { clientTypes } from '../../scripts/client-types'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { WebhookReceiver } from '../../test/support/webhook-receiver'

let t: TestApp
let baseUrl: string
let token: string
let client: TrackingClient
const hook = 'https://shop.example/hook'
beforeAll(async () => {
  t = await createTestApp()
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
  token = (await t.createUser('typed')).token
  client = createClient({ baseUrl, token })
})
afterAll(() => t.close())

/** A fetch that counts what goes through it. */
function counting() {
  const sent: string[] = []
  const fetchImpl: typeof fetch = (input, init) => {
    const request = new Request(input, init)
    sent.push(`${request.method} ${new URL(request.url).pathname}`)
    return fetch(request)
  }
  return { sent, fetchImpl }
}

describe('the client package', () => {
  it('is generated from the document the service serves (npm run client:types after a change of it)', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as object
    const committed = readFileSync(new URL('../src/api.ts', import.meta.url), 'utf8')
    expect(await clientTypes(document)).toBe(committed)
    expect(committed).toContain('export interface webhooks')
  })

  it("runs the API's operations, typed, each answering its envelope's data", async () => {
    const subscribed = await client.subscribe({ carrierCode: 'FEDEX', trackingNumber: '794843185271', callbackUrl: hook, externalReferenceNo: 'order-9' })
    expect(subscribed).toMatchObject({ carrierCode: 'FEDEX', trackingNumber: '794843185271', externalReferenceNo: 'order-9' })
    const { taskId } = subscribed
    expect(await client.getSubscription({ taskId })).toMatchObject({ taskId, standardStatus: 'pending' })
    expect(await client.getTask(taskId)).toMatchObject({ taskId, recipient: null, notifications: [] })
    const batch = await client.subscribeBatch([{ carrierCode: 'UPS', trackingNumber: '1Z5R89390357567127', callbackUrl: hook }])
    expect(batch.results.map((r) => r.result)).toEqual(['created'])
    expect((await client.detectCarrier('1Z5R89390357567127')).candidates[0]).toMatchObject({ carrierCode: 'UPS' })
    expect((await client.listCarriers()).carriers.map((c) => c.carrierCode)).toContain('CANADAPOST')
    expect(await client.refreshTask(taskId)).toMatchObject({ taskId })
    expect(await client.stopTask(taskId)).toMatchObject({ taskId, active: false })
    expect(await client.listTaskWebhooks(taskId)).toEqual({ deliveries: [] })
    expect(await client.changeTaskCarrier(taskId, 'DHL')).toMatchObject({ taskId, carrierCode: 'DHL' })
    expect(await client.deleteTask(taskId)).toEqual({ taskId, deleted: true })
  })

  it('walks every page of a list with an async iterator', async () => {
    const { token: own } = await t.createUser('pages')
    const { sent, fetchImpl } = counting()
    const paged = createClient({ baseUrl, token: own, fetch: fetchImpl })
    const numbers = Array.from({ length: 5 }, (_, i) => `PAGES${i}000001`)
    await paged.subscribeBatch(numbers.map((trackingNumber) => ({ carrierCode: 'UPARCEL', trackingNumber, callbackUrl: hook })))
    sent.length = 0
    const seen: string[] = []
    for await (const task of paged.tasks({ limit: 2, sort: 'createdAt' })) seen.push(task.trackingNumber)
    expect(seen).toEqual(numbers)
    expect(sent).toEqual(Array(3).fill('GET /openapi/tracking-subscriptions/list'))
  })

  it('throws the error envelope as a typed TrackingApiError', async () => {
    const missing = await client.getTask(999_999_999).catch((error: unknown) => error)
    expect(missing).toBeInstanceOf(TrackingApiError)
    expect(missing).toMatchObject({ status: 404, reason: 'not_found', details: [] })
    expect((missing as TrackingApiError).requestId).toMatch(/.+/)
    const invalid = await client.subscribe({ carrierCode: 'FEDEX', trackingNumber: '794843185271', callbackUrl: 'ftp://x' }).catch((error: unknown) => error)
    expect(invalid).toMatchObject({ status: 400, reason: 'validation_error', details: [{ field: 'callbackUrl' }] })
    const stranger = createClient({ baseUrl, token: 'trk_not-a-token' })
    await expect(stranger.listCarriers()).rejects.toMatchObject({ status: 401, reason: 'unauthorized' })
  })

  it('waits out a 429 for as long as Retry-After says, then gets its answer', async () => {
    const limited = await createTestApp({ database: t.database, rateLimits: { perTokenPerSecond: 1, perAddressPerSecond: 0 } })
    try {
      const limitedUrl = await limited.app.listen({ port: 0, host: '127.0.0.1' })
      const { sent, fetchImpl } = counting()
      const patient = createClient({ baseUrl: limitedUrl, token, fetch: fetchImpl })
      const started = Date.now()
      // The bucket holds two requests; the third is refused (Retry-After: 1) and sent again.
      for (let i = 0; i < 3; i++) expect((await patient.listCarriers()).carriers.length).toBeGreaterThan(0)
      expect(sent).toHaveLength(4)
      expect(Date.now() - started).toBeGreaterThanOrEqual(900)
      const impatient = createClient({ baseUrl: limitedUrl, token, retries: 0 })
      await expect(impatient.listCarriers()).rejects.toMatchObject({ status: 429, reason: 'rate_limited' })
    } finally {
      await limited.close()
    }
  })

  it('sends a request again, body and all, after a 503', async () => {
    const bodies: string[] = []
    const flaky: Server = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk: Buffer) => (body += chunk.toString()))
      request.on('end', () => {
        bodies.push(body)
        if (bodies.length === 1) {
          response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' })
          return response.end(JSON.stringify({ code: 503, data: { error: 'unavailable' }, msg: 'the database cannot serve now' }))
        }
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ code: 200, data: { taskId: 7 }, msg: 'success' }))
      })
    })
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = flaky.address() as AddressInfo
      const answer = await createClient({ baseUrl: `http://127.0.0.1:${port}`, token }).subscribe({
        carrierCode: 'FEDEX',
        trackingNumber: '1',
        callbackUrl: hook,
      })
      expect(answer).toEqual({ taskId: 7 })
      expect(bodies).toHaveLength(2)
      expect(bodies[1]).toBe(bodies[0])
      expect(JSON.parse(bodies[0]!)).toMatchObject({ trackingNumber: '1' })
    } finally {
      await new Promise((resolve) => flaky.close(resolve))
    }
  })

  it('verifies a webhook the service sent and returns it typed; both secrets during a rotation; nothing altered or stale', async () => {
    const receiver = new WebhookReceiver()
    await receiver.start()
    try {
      const url = receiver.on('/account', () => ({ status: 204 }))
      const created = await client.raw.POST('/openapi/webhook-endpoints', { body: { url, eventTypes: ['tracking.status_changed'] } })
      const { endpointId, secret } = created.data!.data
      const sendTest = async () => {
        await client.raw.POST('/openapi/webhook-endpoints/{endpointId}/test', { params: { path: { endpointId } } })
        return receiver.requests('/account').at(-1)!
      }
      const first = await sendTest()
      const event = verifyWebhook(first.body, first.headers, secret)
      expect(event.type).toBe('webhook.test')
      if (event.type === 'webhook.test') expect(event.data).toMatchObject({ endpointId })

      const rotated = await client.raw.POST('/openapi/webhook-endpoints/{endpointId}/secret/rotate', { params: { path: { endpointId } } })
      const newSecret = rotated.data!.data.secret
      const second = await sendTest()
      expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2)
      for (const secrets of [newSecret, secret, ['whsec_' + Buffer.from('wrong secret, 32 bytes long.....').toString('base64'), newSecret]]) {
        expect(verifyWebhook(second.body, second.headers, secrets).type).toBe('webhook.test')
      }
      expect(() => verifyWebhook(second.body.replace('webhook.test', 'webhook.tesT'), second.headers, newSecret)).toThrow(WebhookVerificationError)
      expect(() => verifyWebhook(JSON.stringify(JSON.parse(second.body), null, 1), second.headers, newSecret)).toThrow(WebhookVerificationError)
      // Signed right, but 6 minutes ago: past the 5-minute tolerance.
      const id = String(second.headers['webhook-id'])
      const sixMinutesAgo = new Date(Date.now() - 6 * 60_000)
      const stale = {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(sixMinutesAgo.getTime() / 1000)),
        'webhook-signature': new Webhook(newSecret).sign(id, sixMinutesAgo, second.body),
      }
      expect(() => verifyWebhook(second.body, stale, newSecret)).toThrow(WebhookVerificationError)
      expect(() => verifyWebhook(second.body, new Headers(stale), newSecret)).toThrow(/too old/i)
    } finally {
      await receiver.stop()
    }
  })

  it('is also a CommonJS package', async () => {
    const required = createRequire(import.meta.url)('@tracking-subscriptions/client') as typeof import('@tracking-subscriptions/client')
    expect(required.createClient).not.toBe(createClient)
    const carriers = await required.createClient({ baseUrl, token }).listCarriers()
    expect(carriers.carriers.length).toBeGreaterThan(0)
  })
})
