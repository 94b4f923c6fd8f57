import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from './app'
import { createTestApp, type TestApp } from '../../test/support/test-app'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('rate limits', () => {
  it('limit each token, answering 429 rate_limited with Retry-After; other tokens go on', async () => {
    const app = await buildApp({ services: t.services, adminToken: undefined, rateLimits: { perTokenPerSecond: 5, perAddressPerSecond: 0 } })
    try {
      const [a, b] = [await t.createUser('a'), await t.createUser('b')]
      const query = (token: string) =>
        app.inject({ method: 'GET', url: '/openapi/tracking-subscriptions?taskId=1', headers: { authorization: `Bearer ${token}` } })
      const answers = []
      for (let i = 0; i < 12; i++) answers.push(await query(a.token))
      // Two seconds' worth (10) pass, then the bucket is empty; each answer says what is left.
      expect(answers.slice(0, 10).every((r) => r.statusCode === 404)).toBe(true)
      expect(answers[0]!.headers).toMatchObject({ 'ratelimit-limit': '10', 'ratelimit-remaining': '9', 'ratelimit-reset': '1' })
      expect(Number(answers[9]!.headers['ratelimit-remaining'])).toBeLessThanOrEqual(1)
      const limited = await query(a.token)
      expect(limited.statusCode).toBe(429)
      expect(limited.headers['retry-after']).toBe('1')
      expect(limited.headers).toMatchObject({ 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': '2' })
      expect(limited.json()).toEqual({ code: 429, data: { error: 'rate_limited' }, msg: 'too many requests; retry after 1 s' })
      expect((await query(b.token)).statusCode).toBe(404)
    } finally {
      await app.close()
    }
  })

  it('limit each client address, before authentication', async () => {
    const app = await buildApp({ services: t.services, adminToken: undefined, rateLimits: { perTokenPerSecond: 0, perAddressPerSecond: 3 } })
    try {
      const guess = (i: number, remoteAddress = '203.0.113.9') =>
        app.inject({ method: 'GET', url: '/openapi/tracking-subscriptions?taskId=1', remoteAddress, headers: { authorization: `Bearer trk_guess${i}` } })
      const statuses = []
      for (let i = 0; i < 8; i++) statuses.push((await guess(i)).statusCode)
      expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429])
      expect((await guess(99, '203.0.113.10')).statusCode).toBe(401)
      expect((await guess(100, '203.0.113.11')).headers).toMatchObject({ 'ratelimit-limit': '6', 'ratelimit-remaining': '5' })
      // Operations endpoints are never limited.
      for (let i = 0; i < 10; i++) {
        const health = await app.inject({ method: 'GET', url: '/healthz', remoteAddress: '203.0.113.9' })
        expect(health.statusCode).toBe(200)
        expect(health.headers).not.toHaveProperty('ratelimit-limit')
      }
    } finally {
      await app.close()
    }
  })
})
