import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../../test/support/test-app'
import { PAGE_STATES, putInState } from '../../../test/support/tracking-page-states'
import { buildApp } from '../app'

let t: TestApp
let shop: { userId: number; token: string }
const PATH = '/openapi/tracking-subscriptions'

beforeAll(async () => {
  t = await createTestApp()
  shop = await t.createUser('internal api user name')
})
afterAll(() => t.close())

let seq = 0
async function task(state: (typeof PAGE_STATES)[number] = 'in_transit', reference = 'ORDER-4711'): Promise<{ taskId: number; url: string; path: string }> {
  const { taskId } = await t.services.subscriptions.subscribe(shop.userId, {
    carrierCode: 'FEDEX',
    trackingNumber: `TP${Date.now()}${++seq}`,
    callbackUrl: 'https://hooks.shop.example/secret-callback',
    externalReferenceNo: reference,
  })
  await putInState(t.db, taskId, state)
  const url = (await t.as(shop.token, { method: 'GET', url: `${PATH}/${taskId}` })).json().data.trackingPageUrl as string
  return { taskId, url, path: new URL(url).pathname }
}
const page = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path, headers })
const brand = (body: unknown) => t.as(shop.token, { method: 'PUT', url: '/openapi/tracking-page', payload: body as object })
const BRAND = {
  displayName: 'Nordlicht Kaffee',
  logoUrl: 'https://cdn.nordlicht.example/logo.svg',
  accentColor: '#7a3e00',
  supportUrl: 'https://nordlicht.example/help',
  supportEmail: 'hilfe@nordlicht.example',
  showReference: false,
  defaultLanguage: 'de',
} as const

describe('the full task’s trackingPageUrl', () => {
  it('is the configured base, /t/ and a random token of 32 characters, a new one for each task', async () => {
    const a = await task()
    const b = await task()
    expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/t\/[A-Za-z0-9_-]{32}$/)
    expect(a.path).not.toBe(b.path)
  })

  it('is replaced by rotate: the old URL answers the same 404 as an unknown token, the new one the page', async () => {
    const { taskId, path } = await task()
    expect((await page(path)).statusCode).toBe(200)
    const rotated = await t.as(shop.token, { method: 'POST', url: `${PATH}/${taskId}/tracking-page/rotate` })
    expect(rotated.statusCode).toBe(200)
    const next = rotated.json().data.trackingPageUrl as string
    expect(next).not.toContain(path)
    const old = await page(path)
    const unknown = await page('/t/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')
    expect(old.statusCode).toBe(404)
    expect(old.body).toBe(unknown.body)
    expect((await page(new URL(next).pathname)).statusCode).toBe(200)
    expect((await t.as(shop.token, { method: 'GET', url: `${PATH}/${taskId}` })).json().data.trackingPageUrl).toBe(next)
  })

  it('ends with its task: a deleted task’s page answers the same 404', async () => {
    const { taskId, path } = await task()
    expect((await t.as(shop.token, { method: 'DELETE', url: `${PATH}/${taskId}` })).statusCode).toBe(200)
    const gone = await page(path)
    expect(gone.statusCode).toBe(404)
    expect(gone.body).toBe((await page('/t/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).body)
  })

  it('rotates only the caller’s own tasks', async () => {
    const { taskId } = await task()
    const stranger = await t.createUser('stranger')
    const res = await t.as(stranger.token, { method: 'POST', url: `${PATH}/${taskId}/tracking-page/rotate` })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toMatchObject({ code: 404, data: { error: 'not_found' } })
  })
})

describe('GET /t/{token}', () => {
  it('shows the parcel and leaks nothing of the API: no callback, ids, user, street lines, postal codes or reference', async () => {
    const { taskId, path } = await task('delivered')
    for (const accept of ['text/html', 'application/json']) {
      const res = await page(path, { accept })
      expect(res.statusCode).toBe(200)
      for (const secret of ['secret-callback', 'hooks.shop.example', 'internal api user name', 'Hacks Cross', 'Marina Blvd', '38118', '018956', 'ORDER-4711']) {
        expect(res.body).not.toContain(secret)
      }
      // The task's id as a value of its own (a bare digit may well stand in a date or a time).
      expect(res.body).not.toMatch(new RegExp(`[>"/=:]${taskId}[<",&]|taskId|userId`))
      expect(res.body).toContain('MEMPHIS')
      expect(res.body).toContain('J. TAN')
    }
  })

  it('shows the reference only when the shop allows it', async () => {
    const { path } = await task('in_transit', 'ORDER-0815')
    expect((await page(path)).body).not.toContain('ORDER-0815')
    expect((await brand({ ...BRAND, showReference: true })).statusCode).toBe(200)
    expect((await page(path)).body).toContain('ORDER-0815')
    expect((await page(path, { accept: 'application/json' })).json().data.reference).toBe('ORDER-0815')
    await brand({ ...BRAND, showReference: false })
  })

  it('is safe to publish: noindex, no referrer, a CSP without script, private caching with an ETag and 304', async () => {
    const { path } = await task()
    const res = await page(path)
    expect(res.headers['x-robots-tag']).toBe('noindex, nofollow')
    expect(res.headers['referrer-policy']).toBe('no-referrer')
    const csp = res.headers['content-security-policy'] as string
    expect(csp).toMatch(/default-src 'none'/)
    expect(csp).not.toMatch(/script-src|unsafe-inline/)
    expect(res.body).not.toMatch(/<script/i)
    expect(res.headers['cache-control']).toBe('private, max-age=60')
    const etag = res.headers.etag as string
    expect(etag).toMatch(/^W\/".+"$/)
    const again = await page(path, { 'if-none-match': etag })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
    // Another language is another answer.
    expect((await page(`${path}?lang=fr`, { 'if-none-match': etag })).statusCode).toBe(200)
  })

  it('answers JSON with Accept: application/json, CORS open, exactly what the page shows', async () => {
    const { path } = await task('out_for_delivery')
    const res = await page(path, { accept: 'application/json' })
    expect(res.headers['access-control-allow-origin']).toBe('*')
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const data = res.json().data
    expect(Object.keys(data)).toEqual([
      'language',
      'shop',
      'carrier',
      'reference',
      'milestone',
      'progress',
      'trouble',
      'expected',
      'deliveredAt',
      'ended',
      'proofOfDelivery',
      'origin',
      'destination',
      'events',
      'updatedAt',
    ])
    expect(data.milestone).toBe('out_for_delivery')
    expect(data.expected).toMatchObject({ source: 'carrier' })
    expect(data.carrier).toMatchObject({ code: 'FEDEX', name: 'FedEx', trackingUrl: expect.stringMatching(/^https:\/\/www\.fedex\.com\//) })
    expect(data.origin).toEqual({ city: 'MEMPHIS', state: 'TN', country: 'US' })
    expect(data.events[0]).toMatchObject({ milestone: 'out_for_delivery', localTime: expect.stringMatching(/\+08:00$/) })
    expect(Date.parse(data.events[0].at)).toBeGreaterThan(Date.parse(data.events[1].at))
    // The HTML shows the same: its events, in the same order.
    const html = (await page(path)).body
    const positions = data.events.map((e: { description: string }) => html.indexOf(e.description))
    expect(positions.every((p: number) => p > 0)).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
    const missing = await page('/t/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', { accept: 'application/json' })
    expect(missing.statusCode).toBe(404)
    expect(missing.json()).toMatchObject({ code: 404, data: { error: 'not_found' } })
  })

  it('speaks ?lang=, else Accept-Language, else the shop’s default, with dates in that language', async () => {
    await brand(BRAND)
    const { path } = await task('in_transit')
    const lang = async (url: string, headers: Record<string, string> = {}) => (await page(url, { ...headers, accept: 'application/json' })).json().data.language
    expect(await lang(path)).toBe('de')
    expect(await lang(path, { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8' })).toBe('fr')
    expect(await lang(path, { 'accept-language': 'ja, es;q=0.5' })).toBe('es')
    expect(await lang(`${path}?lang=en`, { 'accept-language': 'fr' })).toBe('en')
    expect(await lang(`${path}?lang=xx`, { 'accept-language': 'es' })).toBe('es')
    const german = (await page(path)).body
    expect(german).toContain('<html lang="de">')
    expect(german).toContain('Sendungsverlauf')
    expect(german).toMatch(/(Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag)/)
    const spanish = (await page(`${path}?lang=es`)).body
    expect(spanish).toContain('Historial del envío')
    expect(spanish).toMatch(/(lunes|martes|miércoles|jueves|viernes|sábado|domingo)/)
    await brand({ ...BRAND, defaultLanguage: 'en' })
  })

  it('escapes a hostile branding wherever it appears: nothing runs', async () => {
    await brand({ ...BRAND, displayName: '<script>alert(1)</script>"><img src=x onerror=alert(2)>', logoUrl: 'https://x.example/a.svg"onload="alert(3)' })
    const { path } = await task()
    const body = (await page(path)).body
    expect(body).not.toMatch(/<script|<img src=x|"onload=/i)
    expect(body).toContain('&lt;script&gt;')
    await brand(BRAND)
  })

  it('is rate-limited per address', async () => {
    const limited = await buildApp({ services: t.services, adminToken: undefined, rateLimits: { perTokenPerSecond: 0, perAddressPerSecond: 2 } })
    try {
      const { path } = await task()
      const codes: number[] = []
      for (let i = 0; i < 8; i++) codes.push((await limited.inject({ method: 'GET', url: path, remoteAddress: '203.0.113.9' })).statusCode)
      expect(codes).toContain(429)
      expect((await limited.inject({ method: 'GET', url: path, remoteAddress: '203.0.113.10' })).statusCode).toBe(200)
    } finally {
      await limited.close()
    }
  })
})

describe('PUT /openapi/tracking-page', () => {
  it('keeps the branding and answers it; GET answers the defaults before', async () => {
    const other = await t.createUser('fresh')
    const before = await t.as(other.token, { method: 'GET', url: '/openapi/tracking-page' })
    expect(before.json().data).toEqual({
      displayName: '',
      logoUrl: null,
      accentColor: null,
      supportUrl: null,
      supportEmail: null,
      showReference: false,
      defaultLanguage: 'en',
    })
    const saved = await t.as(other.token, { method: 'PUT', url: '/openapi/tracking-page', payload: BRAND })
    expect(saved.json().data).toEqual(BRAND)
    expect((await t.as(other.token, { method: 'GET', url: '/openapi/tracking-page' })).json().data).toEqual(BRAND)
  })

  it.each([
    ['logoUrl', 'http://cdn.example/logo.png', 'must be an absolute https URL'],
    ['logoUrl', 'javascript:alert(1)', 'must be an absolute https URL'],
    ['supportUrl', 'https://user:pw@help.example/', 'must be an absolute https URL'],
    ['accentColor', 'red', 'must be a colour written #rrggbb'],
    ['accentColor', '#12345', 'must be a colour written #rrggbb'],
    ['supportEmail', 'not an email', 'must be an email address'],
    ['supportEmail', 'a@b', 'must be an email address'],
    ['displayName', 'x'.repeat(101), 'must be at most 100 characters'],
    ['defaultLanguage', 'it', 'must be one of en, de, fr, es'],
  ])('refuses %s %j in the envelope', async (field, value, message) => {
    const res = await brand({ ...BRAND, [field]: value })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ code: 400, data: { error: 'validation_error', details: [{ field, message: expect.stringContaining(message) }] } })
  })

  it('refuses a body without every member, and unknown members', async () => {
    const { defaultLanguage: _, ...partial } = BRAND
    expect((await brand(partial)).statusCode).toBe(400)
    expect((await brand({ ...BRAND, colour: '#000000' })).statusCode).toBe(400)
  })
})
