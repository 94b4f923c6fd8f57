import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectDatabase } from '../../db/database'
import { loadConfig } from '../../config/config'
import { createServices } from '../../main/container'
import { buildApp } from '../app'
import { createLogger } from '../../observability/logger'
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../test/support/test-app'
import { onPostgres } from '../../../test/support/test-database'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('operations endpoints', () => {
  it('GET /healthz answers without a token and names the database', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      code: 200,
      data: {
        status: 'ok',
        database: onPostgres ? 'postgres' : 'embedded',
        carriers: {
          FEDEX: 'simulator',
          UPARCEL: 'simulator',
          UPS: 'simulator',
          USPS: 'simulator',
          DHL: 'simulator',
          LAPOSTE: 'simulator',
          GLS: 'simulator',
          CANADAPOST: 'simulator',
          SEVENTEENTRACK: 'simulator',
        },
      },
      msg: 'success',
    })
  })

  it('GET /readyz answers 200 when the database answers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' })
    expect(res.json()).toEqual({ code: 200, data: { status: 'ready', carriers: {} }, msg: 'success' })
  })

  it('GET /metrics counts requests by route and status, and their latency', async () => {
    const { token } = await t.createUser()
    await t.as(token, { method: 'GET', url: '/openapi/tracking-subscriptions?taskId=424242' })
    await t.app.inject({ method: 'GET', url: '/no/such/route' })
    const res = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/plain')
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/openapi\/tracking-subscriptions",status_code="404"\} 1/)
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="unmatched",status_code="404"\} 1/)
    expect(res.body).toMatch(/http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/openapi\/tracking-subscriptions",status_code="404"\} 1/)
    expect(res.body).toContain('process_resident_memory_bytes')
  })

  it('serves the OpenAPI document and its UI without a token', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json().openapi).toBe('3.1.0')
    const ui = await t.app.inject({ method: 'GET', url: '/docs/' })
    expect(ui.statusCode).toBe(200)
    expect(ui.body).toContain('swagger')
  })

  it('answers with a request id, keeping a sane one given by the caller', async () => {
    const generated = await t.app.inject({ method: 'GET', url: '/healthz' })
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    const kept = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } })
    expect(kept.headers['x-request-id']).toBe('abc-123')
    const replaced = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\twith spaces' } })
    expect(replaced.headers['x-request-id']).not.toContain(' ')
  })

  it('answers unknown routes and methods with the 404 envelope', async () => {
    for (const [method, url] of [
      ['GET', '/nope'],
      ['DELETE', '/openapi/tracking-subscriptions'],
      ['PUT', '/openapi/tracking-subscriptions/batch'],
    ] as const) {
      const res = await t.app.inject({ method, url })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ code: 404, data: { error: 'not_found' }, msg: 'no such route' })
    }
  })
})

describe('structured logs', () => {
  it('carry the request id and never a token or secret', async () => {
    const lines: string[] = []
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk))
        done()
      },
    })
    const app = await buildApp({ services: t.services, adminToken: ADMIN_TOKEN, logger: createLogger('trace', stream) })
    try {
      const created = await app.inject({
        method: 'POST',
        url: '/admin/api-users',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { name: 'logged' },
      })
      const { token, webhookSecret } = created.json().data
      await app.inject({
        method: 'POST',
        url: '/openapi/tracking-subscriptions',
        headers: { authorization: `Bearer ${token}`, 'x-request-id': 'req-log-1' },
        payload: { carrierCode: 'FEDEX', trackingNumber: 'LOG1', callbackUrl: 'https://a.example/' },
      })
      await app.inject({ method: 'GET', url: '/openapi/tracking-subscriptions?taskId=1', headers: { authorization: 'Bearer trk_wrong-token-value' } })
      const log = lines.join('')
      expect(log).toContain('"reqId":"req-log-1"')
      for (const secret of [token, webhookSecret, ADMIN_TOKEN, 'trk_wrong-token-value']) expect(log).not.toContain(secret)
    } finally {
      await app.close()
    }
  })
})

describe('with the database unreachable', () => {
  it('answers 503 unavailable on /readyz and on the API, never 500', async () => {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    const config = loadConfig({})
    const db = connectDatabase('postgresql://postgres@127.0.0.1:1/none', 'postgres', { poolSize: 2, publicBaseUrl: config.publicBaseUrl })
    const app = await buildApp({ services: createServices(db, config), adminToken: ADMIN_TOKEN })
    try {
      const ready = await app.inject({ method: 'GET', url: '/readyz' })
      expect(ready.statusCode).toBe(503)
      expect(ready.json()).toEqual({ code: 503, data: { error: 'unavailable' }, msg: expect.any(String) })
      const api = await app.inject({ method: 'GET', url: '/openapi/tracking-subscriptions?taskId=1', headers: { authorization: 'Bearer trk_x' } })
      expect(api.statusCode).toBe(503)
      expect(api.json().data.error).toBe('unavailable')
      // Every 503 says when to come back.
      expect([ready.headers['retry-after'], api.headers['retry-after']]).toEqual(['1', '1'])
      const adminCall = await app.inject({ method: 'GET', url: '/admin/settings', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      expect(adminCall.statusCode).toBe(503)
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200)
    } finally {
      await app.close()
      await db.close()
    }
  })
})
