import { beforeAll, describe, expect, it } from 'vitest'
import { HOOK as hook, PATH, subscriptionApi } from '../../../test/support/subscription-api'
import type { TestApp } from '../../../test/support/test-app'

// The interface's subscribe and query (its batch: subscription-batch.routes.test.ts).
const api = subscriptionApi()
const { taskCount, subscribe, query, number } = api
let t: TestApp
let token: string
let otherToken: string
beforeAll(() => ({ t, token, otherToken } = api))

describe('POST /openapi/tracking-subscriptions', () => {
  it('creates a task, normalising carrierCode and trimming trackingNumber', async () => {
    const tn = number()
    const res = await subscribe({ carrierCode: '  fedex ', trackingNumber: `  ${tn} `, callbackUrl: hook, externalReferenceNo: 'order-1' })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toEqual({
      code: 200,
      msg: 'success',
      data: {
        taskId: expect.any(Number),
        carrierCode: 'FEDEX',
        trackingNumber: tn,
        externalReferenceNo: 'order-1',
        standardStatus: 'pending',
        result: 'created',
        message: expect.any(String),
      },
    })
    expect(body.data.taskId).toBeGreaterThan(0)
  })

  it('overwrites callbackUrl and externalReferenceNo of an existing task and answers updated', async () => {
    const tn = number()
    const first = (await subscribe({ carrierCode: 'UPARCEL', trackingNumber: tn, callbackUrl: hook, externalReferenceNo: 'a' })).json()
    const second = await subscribe({ carrierCode: 'uparcel', trackingNumber: tn, callbackUrl: 'https://other.example/hook' })
    expect(second.statusCode).toBe(200)
    expect(second.json().data).toMatchObject({ taskId: first.data.taskId, result: 'updated', externalReferenceNo: '' })
    const [row] = await t.db.query('SELECT callback_url, external_reference_no FROM tracking_tasks WHERE id = $1', [first.data.taskId])
    expect(row).toEqual({ callback_url: 'https://other.example/hook', external_reference_no: '' })
  })

  it('stores a null externalReferenceNo as ""', async () => {
    const res = await subscribe({ carrierCode: 'FEDEX', trackingNumber: number(), callbackUrl: hook, externalReferenceNo: null })
    expect(res.json().data.externalReferenceNo).toBe('')
  })

  it('ignores unknown fields', async () => {
    const res = await subscribe({ carrierCode: 'FEDEX', trackingNumber: number(), callbackUrl: hook, colour: 'blue' })
    expect(res.statusCode).toBe(200)
  })

  it('makes one task out of 30 identical concurrent subscribes', async () => {
    const tn = number('RACE')
    const responses = await Promise.all(Array.from({ length: 30 }, () => subscribe({ carrierCode: 'FEDEX', trackingNumber: tn, callbackUrl: hook })))
    const data = responses.map((r) => r.json().data)
    expect(new Set(data.map((d) => d.taskId)).size).toBe(1)
    expect(data.filter((d) => d.result === 'created')).toHaveLength(1)
    expect(data.filter((d) => d.result === 'updated')).toHaveLength(29)
    const [row] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tracking_tasks WHERE tracking_number = $1', [tn])
    expect(row!.n).toBe(1)
  })

  it('rejects an unsupported carrier with 400 unsupported_carrier and writes nothing', async () => {
    const before = await taskCount()
    const res = await subscribe({ carrierCode: ' acme ', trackingNumber: number(), callbackUrl: hook })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      code: 400,
      data: {
        error: 'unsupported_carrier',
        details: [{ field: 'carrierCode', message: 'is not a supported carrier (supported: FEDEX, UPARCEL, UPS, USPS, DHL, LAPOSTE, GLS, CANADAPOST)' }],
      },
      msg: expect.stringContaining('carrierCode'),
    })
    expect(await taskCount()).toBe(before)
  })

  it('reports every field problem at once', async () => {
    const res = await subscribe({ carrierCode: 7, trackingNumber: '   ', callbackUrl: 'ftp://files.example/x', externalReferenceNo: 5 })
    expect(res.statusCode).toBe(400)
    expect(res.json().data).toEqual({
      error: 'validation_error',
      details: [
        { field: 'carrierCode', message: 'must be a string' },
        { field: 'trackingNumber', message: 'must not be empty' },
        { field: 'callbackUrl', message: 'must be an absolute http or https URL' },
        { field: 'externalReferenceNo', message: 'must be a string' },
      ],
    })
  })

  const valid = { carrierCode: 'FEDEX', trackingNumber: 'X1', callbackUrl: hook }
  const badBodies: [string, unknown, string, string][] = [
    ['a missing carrierCode', { trackingNumber: 'X1', callbackUrl: hook }, 'carrierCode', 'is required'],
    ['an empty carrierCode', { ...valid, carrierCode: '   ' }, 'carrierCode', 'must not be empty'],
    ['a numeric trackingNumber (no coercion)', { ...valid, trackingNumber: 12345 }, 'trackingNumber', 'must be a string'],
    ['a trackingNumber of 65 characters', { ...valid, trackingNumber: 'A'.repeat(65) }, 'trackingNumber', 'must be at most 64 characters'],
    ['a 10 kB trackingNumber', { ...valid, trackingNumber: 'A'.repeat(10_240) }, 'trackingNumber', 'must be at most 64 characters'],
    ['a space inside trackingNumber', { ...valid, trackingNumber: 'AB CD' }, 'trackingNumber', 'must not contain whitespace or control characters'],
    [
      'a control character in trackingNumber',
      { ...valid, trackingNumber: 'AB\u0000CD' },
      'trackingNumber',
      'must not contain whitespace or control characters',
    ],
    ['a zero-width space in trackingNumber', { ...valid, trackingNumber: 'AB\u200bCD' }, 'trackingNumber', 'must not contain whitespace or control characters'],
    ['a lone surrogate in trackingNumber', { ...valid, trackingNumber: 'AB\ud800' }, 'trackingNumber', 'must be well-formed unicode'],
    ['a relative callbackUrl', { ...valid, callbackUrl: '/hooks' }, 'callbackUrl', 'must be an absolute http or https URL'],
    ['a javascript: callbackUrl', { ...valid, callbackUrl: 'javascript:alert(1)' }, 'callbackUrl', 'must be an absolute http or https URL'],
    ['a callbackUrl with a newline', { ...valid, callbackUrl: 'https://a.example/\nx' }, 'callbackUrl', 'must not contain whitespace or control characters'],
    [
      'a callbackUrl over 2048 characters',
      { ...valid, callbackUrl: `https://a.example/${'p'.repeat(2048)}` },
      'callbackUrl',
      'must be at most 2048 characters',
    ],
    ['a callbackUrl of 10 kB', { ...valid, callbackUrl: `https://a.example/${'p'.repeat(10_240)}` }, 'callbackUrl', 'must be at most 2048 characters'],
    ['an object as callbackUrl', { ...valid, callbackUrl: { href: hook } }, 'callbackUrl', 'must be a string'],
    ['an externalReferenceNo over 128 characters', { ...valid, externalReferenceNo: 'é'.repeat(129) }, 'externalReferenceNo', 'must be at most 128 characters'],
    ['a control character in externalReferenceNo', { ...valid, externalReferenceNo: 'a\u0007b' }, 'externalReferenceNo', 'must not contain control characters'],
    ['a JSON array body', [valid], '', 'must be a JSON object'],
    ['a JSON string body', 'FEDEX', '', 'must be a JSON object'],
    ['a JSON null body', null, '', 'must be a JSON object'],
  ]
  it.each(badBodies)('rejects %s with 400 validation_error and writes nothing', async (_name, body, field, message) => {
    const before = await taskCount()
    const res = await t.as(token, { method: 'POST', url: PATH, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) })
    expect(res.statusCode).toBe(400)
    const json = res.json()
    expect(json.code).toBe(400)
    expect(json.data.error).toBe('validation_error')
    expect(json.data.details).toContainEqual({ field, message })
    expect(typeof json.msg).toBe('string')
    expect(await taskCount()).toBe(before)
  })

  it('accepts unicode that is neither whitespace nor control in externalReferenceNo', async () => {
    const res = await subscribe({ ...valid, trackingNumber: number(), externalReferenceNo: 'Bestellung Nr. 42 – 東京 😀' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.externalReferenceNo).toBe('Bestellung Nr. 42 – 東京 😀')
  })

  it('rejects malformed JSON with 400 validation_error', async () => {
    const before = await taskCount()
    const res = await t.as(token, { method: 'POST', url: PATH, headers: { 'content-type': 'application/json' }, payload: '{"carrierCode": "FEDEX",' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      code: 400,
      data: { error: 'validation_error', details: [{ field: '', message: 'must be valid JSON' }] },
      msg: 'the request body is not valid JSON',
    })
    expect(await taskCount()).toBe(before)
  })

  it('rejects a prototype-poisoning body', async () => {
    const res = await t.as(token, {
      method: 'POST',
      url: PATH,
      headers: { 'content-type': 'application/json' },
      payload: '{"__proto__": {"x": 1}, "carrierCode": "FEDEX"}',
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().data.error).toBe('validation_error')
  })

  it('rejects an empty body', async () => {
    const res = await t.as(token, { method: 'POST', url: PATH, headers: { 'content-type': 'application/json' }, payload: '' })
    expect(res.statusCode).toBe(400)
    expect(res.json().data.error).toBe('validation_error')
  })

  it('rejects a body over 1 MiB with 413 payload_too_large', async () => {
    const before = await taskCount()
    const res = await t.as(token, {
      method: 'POST',
      url: PATH,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ ...valid, externalReferenceNo: 'x'.repeat(1024 * 1024) }),
    })
    expect(res.statusCode).toBe(413)
    expect(res.json()).toEqual({ code: 413, data: { error: 'payload_too_large' }, msg: 'the request body is larger than 1 MiB' })
    expect(await taskCount()).toBe(before)
  })

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])('rejects Content-Type %s with 415', async (type) => {
    const before = await taskCount()
    const res = await t.as(token, { method: 'POST', url: PATH, headers: { 'content-type': type }, payload: JSON.stringify(valid) })
    expect(res.statusCode).toBe(415)
    expect(res.json()).toEqual({ code: 415, data: { error: 'unsupported_media_type' }, msg: expect.any(String) })
    expect(await taskCount()).toBe(before)
  })

  it.each([
    ['no Authorization header', undefined],
    ['an unknown token', 'Bearer trk_not-a-real-token'],
    ['a Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
  ])('answers 401 unauthorized with %s and writes nothing', async (_name, authorization) => {
    const before = await taskCount()
    const res = await t.app.inject({ method: 'POST', url: PATH, headers: authorization ? { authorization } : {}, payload: valid })
    expect(res.statusCode).toBe(401)
    expect(res.json()).toEqual({ code: 401, data: { error: 'unauthorized' }, msg: expect.any(String) })
    expect(await taskCount()).toBe(before)
  })
})

describe('GET /openapi/tracking-subscriptions', () => {
  let taskId: number
  const tn = `Q${Date.now()}`

  beforeAll(async () => {
    taskId = (await subscribe({ carrierCode: 'FEDEX', trackingNumber: tn, callbackUrl: hook, externalReferenceNo: 'ref-q' })).json().data.taskId
  })

  const pendingTask = (id: number, carrierCode = 'FEDEX') => ({
    taskId: id,
    carrierCode,
    trackingNumber: tn,
    externalReferenceNo: 'ref-q',
    standardStatus: 'pending',
    carrierStatus: '',
    estimatedDeliveryAt: null,
    originAddress: { country: '', state: '', city: '', postalCode: '', address: '' },
    destinationAddress: { country: '', state: '', city: '', postalCode: '', address: '' },
    events: [],
    latestWebhook: null,
  })

  it('finds a task by taskId, with every field of the interface', async () => {
    const res = await query(`taskId=${taskId}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ code: 200, msg: 'success', data: pendingTask(taskId) })
  })

  it('finds a task by trackingNumber, trimmed', async () => {
    const res = await query(`trackingNumber=${encodeURIComponent(`  ${tn} `)}`)
    expect(res.json()).toEqual({ code: 200, msg: 'success', data: pendingTask(taskId) })
  })

  it('returns the newest task when the number is held at two carriers', async () => {
    const newer = (await subscribe({ carrierCode: 'UPARCEL', trackingNumber: tn, callbackUrl: hook, externalReferenceNo: 'ref-q' })).json().data.taskId
    expect(newer).toBeGreaterThan(taskId)
    const res = await query(`trackingNumber=${tn}`)
    expect(res.json().data).toEqual(pendingTask(newer, 'UPARCEL'))
    // Subscribing the older one again does not make it newer: newest means created last.
    await subscribe({ carrierCode: 'FEDEX', trackingNumber: tn, callbackUrl: hook, externalReferenceNo: 'ref-q' })
    expect((await query(`trackingNumber=${tn}`)).json().data.taskId).toBe(newer)
  })

  it("answers 404 for another user's task, exactly as for a missing one", async () => {
    const foreign = await query(`taskId=${taskId}`, otherToken)
    const missing = await query('taskId=999999999', otherToken)
    const foreignByNumber = await query(`trackingNumber=${tn}`, otherToken)
    for (const res of [foreign, missing, foreignByNumber]) {
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ code: 404, data: { error: 'not_found' }, msg: 'subscription not found' })
    }
  })

  it('answers 404 for a well-formed taskId beyond any stored id', async () => {
    const res = await query('taskId=99999999999999999999999')
    expect(res.statusCode).toBe(404)
  })

  it.each([
    ['neither parameter', '', '', 'exactly one of taskId and trackingNumber must be given'],
    ['both parameters', `taskId=1&trackingNumber=X`, '', 'exactly one of taskId and trackingNumber must be given'],
    ['taskId=1.5', 'taskId=1.5', 'taskId', 'must be a positive integer'],
    ['taskId=-1', 'taskId=-1', 'taskId', 'must be a positive integer'],
    ['taskId=0', 'taskId=0', 'taskId', 'must be a positive integer'],
    ['taskId=abc', 'taskId=abc', 'taskId', 'must be a positive integer'],
    ['taskId=1e3', 'taskId=1e3', 'taskId', 'must be a positive integer'],
    ['an empty taskId', 'taskId=', 'taskId', 'must be a positive integer'],
    ['a blank trackingNumber', 'trackingNumber=%20%20', 'trackingNumber', 'must not be empty'],
    ['a trackingNumber with a control character', 'trackingNumber=A%07B', 'trackingNumber', 'must not contain whitespace or control characters'],
    ['a 10 kB trackingNumber', `trackingNumber=${'A'.repeat(10_240)}`, 'trackingNumber', 'must be at most 64 characters'],
    ['a repeated taskId', 'taskId=1&taskId=2', 'taskId', 'must be given once'],
  ])('rejects %s with 400 validation_error', async (_name, qs, field, message) => {
    const res = await query(qs)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ code: 400, data: { error: 'validation_error', details: [{ field, message }] }, msg: expect.any(String) })
  })

  it('requires a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${PATH}?taskId=${taskId}` })
    expect(res.statusCode).toBe(401)
    expect(res.json().data.error).toBe('unauthorized')
  })
})

describe('the stored task', () => {
  it('is written whole: defaults for everything the carrier has not told yet', async () => {
    const tn = number('W')
    const { taskId } = (await subscribe({ carrierCode: 'FEDEX', trackingNumber: tn, callbackUrl: hook })).json().data
    const [row] = await t.db.query(
      'SELECT standard_status, carrier_status, estimated_delivery_at, next_refresh_at IS NOT NULL AS scheduled, refresh_failures FROM tracking_tasks t JOIN task_schedule s ON s.task_id = t.id WHERE t.id = $1',
      [taskId],
    )
    expect(row).toEqual({ standard_status: 'pending', carrier_status: '', estimated_delivery_at: null, scheduled: true, refresh_failures: 0 })
  })
})
