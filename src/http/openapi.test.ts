import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../domain/event-types'
import { ERROR_CODES } from '../domain/errors'
import { STANDARD_STATUSES } from '../domain/statuses'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { isRateLimited } from './rate-limit'

// The document a client is generated from: named schemas, an operationId and the error answers
// on every operation, the webhooks it sends. (Redocly's strict lint and a strict generated client
// run in npm run check:openapi; test/client runs that client.)

interface Operation {
  operationId: string
  security?: unknown[]
  responses: Record<
    string,
    { headers?: Record<string, unknown>; content?: { 'application/json': { schema: { $ref?: string } }; 'text/html'?: { schema: unknown } } }
  >
  requestBody?: { content: { 'application/json': { schema: { $ref?: string; properties?: Record<string, unknown> } } } }
}
let t: TestApp
let doc: {
  openapi: string
  info: { license: unknown }
  servers: unknown[]
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, { enum?: string[] }> }
  webhooks: Record<string, unknown>
}
const operations = () => Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })))

beforeAll(async () => {
  t = await createTestApp()
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
})
afterAll(() => t.close())

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with servers and a license', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.servers.length).toBeGreaterThan(0)
    expect(doc.info.license).toBeDefined()
  })

  it('gives every operation a unique operationId and lists its error answers, Retry-After on 429', () => {
    const ids = operations().map(({ op }) => op.operationId)
    expect(ids.every(Boolean)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    for (const { path, op } of operations()) {
      expect(op.responses['500'], `${op.operationId} lists 500`).toBeDefined()
      if (path.startsWith('/openapi/')) {
        expect(Object.keys(op.responses), op.operationId).toEqual(
          expect.arrayContaining([op.operationId === 'refreshTask' ? '202' : '200', '401', '429', '503']),
        )
        expect(op.responses['429']!.headers?.['retry-after'], op.operationId).toBeDefined()
      }
      for (const [status, response] of Object.entries(op.responses)) {
        // A page's own answers are pages (declared text/html), a 304 has no body; every other error is the envelope.
        if (!status.startsWith('20') && status !== '304' && !response.content?.['text/html'])
          expect(response.content?.['application/json'].schema.$ref, `${op.operationId} ${status}`).toBe('#/components/schemas/Error')
      }
    }
  })

  it('names the schemas a client wants as types, from the domain constants', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Task', 'TrackingEvent', 'Address', 'LatestWebhook', 'Error', 'Subscription', 'StatusChangedEvent']),
    )
    expect(doc.components.schemas.StandardStatus!.enum).toEqual([...STANDARD_STATUSES])
    expect(doc.components.schemas.ErrorReason!.enum).toEqual([...ERROR_CODES])
    const subscribe = doc.paths['/openapi/tracking-subscriptions']!.post!
    expect(subscribe.requestBody!.content['application/json'].schema.$ref).toBe('#/components/schemas/Subscription')
    expect(doc.paths['/openapi/tracking-subscriptions']!.get!.responses['200']!.content!['application/json'].schema).toMatchObject({
      properties: { data: { $ref: '#/components/schemas/Task' } },
    })
  })

  it('leaves only the operations endpoints, the pages for customers, the signed callbacks and pushes open, and says so', () => {
    const open = [
      '/healthz',
      '/readyz',
      '/t/{token}',
      '/u/{token}',
      '/sms/twilio/status/{messageId}',
      '/sms/twilio/inbound',
      '/inbound/{source}',
      '/inbound/{source}/token',
    ]
    for (const { path, op } of operations()) {
      if (open.includes(path)) expect(op.security, path).toEqual([])
      else expect(op.security ?? 'the default bearerAuth', path).not.toEqual([])
    }
  })

  it('declares the RateLimit fields on every answer of a rate-limited path, and only there', () => {
    const fields = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']
    for (const { path, method, op } of operations()) {
      const limited = isRateLimited(path)
      for (const [status, answer] of Object.entries(op.responses)) {
        const declared = fields.filter((field) => answer.headers?.[field])
        expect(declared, `${method} ${path} ${status}`).toEqual(limited ? fields : [])
      }
    }
    expect(operations().filter(({ path }) => isRateLimited(path)).length).toBeGreaterThan(40)
  })

  it('documents every webhook event type', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES, TEST_EVENT_TYPE].sort())
  })
})
