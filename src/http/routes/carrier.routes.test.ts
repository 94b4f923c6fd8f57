import { SEVENTEENTRACK } from '../../carriers/seventeentrack/seventeentrack.route'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../../test/support/test-app'

// The carriers, detection and AUTO, through HTTP. The numbers: UPS's and FedEx's valid sample
// numbers (check digit holds), the same with the last digit changed, a uParcel number (no check digit).
const UPS_NUMBER = '1Z5R89390357567127'
const FEDEX_12 = '986578788855'
const UPARCEL_NUMBER = 'UP2411220001'

let t: TestApp
let token: string
beforeAll(async () => {
  t = await createTestApp()
  token = (await t.createUser()).token
})
afterAll(() => t.close())

const get = (url: string) => t.as(token, { method: 'GET', url })
const post = (url: string, payload: Record<string, unknown>) => t.as(token, { method: 'POST', url, payload })
const hook = 'https://shop.example/hook'

describe('GET /openapi/carriers', () => {
  it('lists every carrier of the registry with its formats', async () => {
    const res = await get('/openapi/carriers')
    expect(res.statusCode).toBe(200)
    const all = res.json().data.carriers as {
      carrierCode: string
      available: boolean
      numbersPerRequest: number
      formats: { name: string; example: string }[]
      route?: string
    }[]
    const carriers = all.filter((c) => c.route === undefined)
    expect(carriers.map((c) => [c.carrierCode, c.available, c.numbersPerRequest])).toEqual([
      ['FEDEX', true, 30],
      ['UPARCEL', true, 50],
      ['UPS', true, 1],
      ['USPS', true, 1],
      ['DHL', true, 1],
      ['LAPOSTE', true, 10],
      ['GLS', true, 10],
      ['CANADAPOST', true, 1],
    ])
    expect(carriers[2]!.formats[0]).toEqual({ name: 'UPS (1Z + 16)', example: UPS_NUMBER })
    // Then every carrier served through 17TRACK, forty numbers a request, its formats left to 17TRACK.
    const routed = all.slice(carriers.length)
    expect(routed.map((c) => c.carrierCode)).toEqual(SEVENTEENTRACK.carriers.map((c) => c.code))
    for (const carrier of routed)
      expect(carrier).toMatchObject({ route: '17track', available: true, numbersPerRequest: 40, formats: [], requestBudget: '1/second' })
  })

  it('needs a token', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/openapi/carriers' })).statusCode).toBe(401)
  })
})

describe('GET /openapi/carriers/detect', () => {
  it.each([
    [` ${UPS_NUMBER.toLowerCase()} `, UPS_NUMBER.toLowerCase(), [{ carrierCode: 'UPS', format: 'UPS (1Z + 16)', confidence: 'high', available: true }]],
    [
      FEDEX_12,
      FEDEX_12,
      [
        { carrierCode: 'FEDEX', format: 'FedEx Express (12 digits)', confidence: 'high', available: true },
        { carrierCode: 'DHL', format: 'DHL Paket Identcode (12 digits)', confidence: 'low', available: true },
        // La Poste takes any 11 to 15 characters; GLS's 12-digit rule does not hold here.
        { carrierCode: 'LAPOSTE', format: 'anything La Poste Suivi accepts (11-15 letters and digits)', confidence: 'low', available: true },
        { carrierCode: 'GLS', format: 'GLS parcel number (12 digits)', confidence: 'low', available: true },
      ],
    ],
    // DHL Paket's Identcode shares the shape: its rule holds here, FedEx's does not.
    [
      '986578788859',
      '986578788859',
      [
        { carrierCode: 'DHL', format: 'DHL Paket Identcode (12 digits)', confidence: 'medium', available: true },
        { carrierCode: 'FEDEX', format: 'FedEx Express (12 digits)', confidence: 'low', available: true },
        { carrierCode: 'LAPOSTE', format: 'anything La Poste Suivi accepts (11-15 letters and digits)', confidence: 'low', available: true },
        { carrierCode: 'GLS', format: 'GLS parcel number (12 digits)', confidence: 'low', available: true },
      ],
    ],
    [
      UPARCEL_NUMBER,
      UPARCEL_NUMBER,
      [
        { carrierCode: 'UPARCEL', format: 'uParcel (UP + 10 digits)', confidence: 'medium', available: true },
        { carrierCode: 'LAPOSTE', format: 'anything La Poste Suivi accepts (11-15 letters and digits)', confidence: 'low', available: true },
      ],
    ],
    ['NOT-A-NUMBER', 'NOT-A-NUMBER', []],
  ])('%j → %s (trimmed, its case kept)', async (asked, trimmed, candidates) => {
    const res = await get(`/openapi/carriers/detect?trackingNumber=${encodeURIComponent(asked)}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ code: 200, data: { trackingNumber: trimmed, candidates }, msg: 'success' })
  })

  it.each([
    ['', 'trackingNumber'],
    ['?trackingNumber=', 'trackingNumber'],
    ['?trackingNumber=a%20b', 'trackingNumber'],
    [`?trackingNumber=${'9'.repeat(65)}`, 'trackingNumber'],
    ['?trackingNumber=1&x=1', 'x'],
  ])('refuses %j with validation_error', async (query, field) => {
    const res = await get(`/openapi/carriers/detect${query}`)
    expect(res.statusCode).toBe(400)
    expect(res.json().data).toMatchObject({ error: 'validation_error', details: [{ field }] })
  })
})

describe('carrierCode AUTO', () => {
  it('subscribes with the carrier it detected, never AUTO', async () => {
    const res = await post('/openapi/tracking-subscriptions', { carrierCode: ' auto ', trackingNumber: UPS_NUMBER, callbackUrl: hook })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({ carrierCode: 'UPS', trackingNumber: UPS_NUMBER, result: 'created' })
    const query = await get(`/openapi/tracking-subscriptions?trackingNumber=${UPS_NUMBER}`)
    expect(query.json().data.carrierCode).toBe('UPS')
  })

  it('refuses to guess: carrier_not_detected with the candidates, nothing written', async () => {
    for (const trackingNumber of [UPARCEL_NUMBER, '986578788859', 'ORDER-1001']) {
      const res = await post('/openapi/tracking-subscriptions', { carrierCode: 'AUTO', trackingNumber, callbackUrl: hook })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({
        code: 400,
        data: { error: 'carrier_not_detected', details: [{ field: 'carrierCode' }] },
        msg: expect.stringContaining('AUTO could not pick a carrier'),
      })
      expect(res.json().data.candidates).toEqual((await get(`/openapi/carriers/detect?trackingNumber=${trackingNumber}`)).json().data.candidates)
      expect((await get(`/openapi/tracking-subscriptions?trackingNumber=${trackingNumber}`)).statusCode).toBe(404)
    }
  })

  it('judges each batch item alone', async () => {
    const res = await post('/openapi/tracking-subscriptions/batch', {
      items: [
        { carrierCode: 'AUTO', trackingNumber: FEDEX_12, callbackUrl: hook },
        { carrierCode: 'AUTO', trackingNumber: UPARCEL_NUMBER, callbackUrl: hook },
        { carrierCode: 'UPARCEL', trackingNumber: UPARCEL_NUMBER, callbackUrl: hook },
      ],
    })
    expect(res.statusCode).toBe(200)
    const [fedex, undetected, uparcel] = res.json().data.results
    expect(fedex).toMatchObject({ carrierCode: 'FEDEX', result: 'created' })
    expect(fedex.candidates).toBeUndefined()
    expect(undetected).toMatchObject({
      carrierCode: 'AUTO',
      taskId: 0,
      result: 'carrier_not_detected',
      candidates: [
        { carrierCode: 'UPARCEL', confidence: 'medium' },
        { carrierCode: 'LAPOSTE', confidence: 'low' },
      ],
    })
    expect(uparcel).toMatchObject({ carrierCode: 'UPARCEL', result: 'created' })
  })
})

describe('a carrier that is not available here', () => {
  let prod: TestApp
  let prodToken: string
  beforeAll(async () => {
    prod = await createTestApp({ carrierModes: { FEDEX: 'live', UPARCEL: 'live', UPS: 'unavailable' } })
    prodToken = (await prod.createUser()).token
  })
  afterAll(() => prod.close())

  it('is listed unavailable, refused on subscribe with a message saying why, and never picked by AUTO', async () => {
    const carriers = (await prod.as(prodToken, { method: 'GET', url: '/openapi/carriers' })).json().data.carriers as {
      carrierCode: string
      available: boolean
    }[]
    expect(carriers.find((c) => c.carrierCode === 'UPS')!.available).toBe(false)
    const refused = await prod.as(prodToken, {
      method: 'POST',
      url: '/openapi/tracking-subscriptions',
      payload: { carrierCode: 'UPS', trackingNumber: UPS_NUMBER, callbackUrl: hook },
    })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().data).toEqual({
      error: 'unsupported_carrier',
      details: [{ field: 'carrierCode', message: 'is not available on this service: UPS has no credentials configured (available: FEDEX, UPARCEL)' }],
    })
    const auto = await prod.as(prodToken, {
      method: 'POST',
      url: '/openapi/tracking-subscriptions',
      payload: { carrierCode: 'AUTO', trackingNumber: UPS_NUMBER, callbackUrl: hook },
    })
    expect(auto.json().data).toMatchObject({ error: 'carrier_not_detected', candidates: [{ carrierCode: 'UPS', confidence: 'high', available: false }] })
    const unknown = await prod.as(prodToken, {
      method: 'POST',
      url: '/openapi/tracking-subscriptions',
      payload: { carrierCode: 'ACME', trackingNumber: UPS_NUMBER, callbackUrl: hook },
    })
    expect(unknown.json().data.details[0].message).toBe('is not a supported carrier (supported: FEDEX, UPARCEL)')
    // A carrier served through 17TRACK without its key: unavailable, and the message names the key.
    expect(carriers.find((c) => c.carrierCode === 'ROYALMAIL')!.available).toBe(false)
    const routed = await prod.as(prodToken, {
      method: 'POST',
      url: '/openapi/tracking-subscriptions',
      payload: { carrierCode: 'ROYALMAIL', trackingNumber: 'AB123456789GB', callbackUrl: hook },
    })
    expect(routed.json().data.details[0].message).toBe(
      'is not available on this service: Royal Mail is served through 17TRACK, which has no key configured (SEVENTEENTRACK_API_KEY) (available: FEDEX, UPARCEL)',
    )
  })
})
