import { beforeAll, describe, expect, it } from 'vitest'
import { HOOK as hook, PATH, subscriptionApi } from '../../../test/support/subscription-api'
import type { TestApp } from '../../../test/support/test-app'

// The interface's batch subscribe: each item judged alone, one statement for all.
const api = subscriptionApi()
const { taskCount, subscribe, batch, number } = api
let t: TestApp
let token: string
beforeAll(() => ({ t, token } = api))

describe('POST /openapi/tracking-subscriptions/batch', () => {
  it('answers one entry per item, in order, with created, reused, validation_error and unsupported_carrier', async () => {
    const existing = number('EX')
    const existingTask = (await subscribe({ carrierCode: 'FEDEX', trackingNumber: existing, callbackUrl: hook, externalReferenceNo: 'keep' })).json().data
    const fresh = number('NEW')
    const res = await batch([
      { carrierCode: 'fedex', trackingNumber: existing, callbackUrl: 'https://changed.example/', externalReferenceNo: 'changed' },
      { carrierCode: 'UPARCEL', trackingNumber: ` ${fresh} `, callbackUrl: hook },
      { carrierCode: 'ACME', trackingNumber: 'D1', callbackUrl: hook },
      'not an object',
      { carrierCode: 'FEDEX', trackingNumber: 'bad number', callbackUrl: hook },
      { carrierCode: ' uparcel', trackingNumber: fresh, callbackUrl: 'https://dup.example/' },
      null,
      { carrierCode: 'FEDEX', trackingNumber: number(), callbackUrl: 12 },
    ])
    expect(res.statusCode).toBe(200)
    const { code, msg, data } = res.json()
    expect({ code, msg }).toEqual({ code: 200, msg: 'success' })
    const results = data.results
    expect(results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    expect(results.map((r: { result: string }) => r.result)).toEqual([
      'reused',
      'created',
      'unsupported_carrier',
      'validation_error',
      'validation_error',
      'reused',
      'validation_error',
      'validation_error',
    ])
    expect(results[0]).toMatchObject({ taskId: existingTask.taskId, carrierCode: 'FEDEX', trackingNumber: existing })
    expect(results[1]).toMatchObject({ carrierCode: 'UPARCEL', trackingNumber: fresh })
    expect(results[1].taskId).toBeGreaterThan(0)
    expect(results[5].taskId).toBe(results[1].taskId)
    expect(results[5].message).toContain('item 1')
    for (const i of [2, 3, 4, 6, 7]) expect(results[i].taskId).toBe(0)
    expect(results[2]).toMatchObject({ carrierCode: 'ACME', trackingNumber: 'D1' })
    expect(results[4].message).toContain('trackingNumber')
    expect(results[7].message).toContain('callbackUrl')
    for (const r of results) expect(typeof r.message).toBe('string')

    // Reused items are left exactly as they were.
    const [kept] = await t.db.query('SELECT callback_url, external_reference_no FROM tracking_tasks WHERE id = $1', [existingTask.taskId])
    expect(kept).toEqual({ callback_url: hook, external_reference_no: 'keep' })
    // The in-batch duplicate did not overwrite the task created by its first occurrence.
    const [created] = await t.db.query('SELECT callback_url FROM tracking_tasks WHERE id = $1', [results[1].taskId])
    expect(created).toEqual({ callback_url: hook })
  })

  it('answers 200 with every item failed when no item is valid, writing nothing', async () => {
    const before = await taskCount()
    const res = await batch([1, 'x', { carrierCode: 'ACME', trackingNumber: 'A', callbackUrl: hook }])
    expect(res.statusCode).toBe(200)
    expect(res.json().data.results.map((r: { result: string; taskId: number }) => [r.result, r.taskId])).toEqual([
      ['validation_error', 0],
      ['validation_error', 0],
      ['unsupported_carrier', 0],
    ])
    expect(await taskCount()).toBe(before)
  })

  it('creates 100 items in one request', async () => {
    const prefix = number('B')
    const items = Array.from({ length: 100 }, (_, i) => ({ carrierCode: i % 2 ? 'FEDEX' : 'UPARCEL', trackingNumber: `${prefix}-${i}`, callbackUrl: hook }))
    const res = await batch(items)
    expect(res.statusCode).toBe(200)
    const results = res.json().data.results
    expect(results).toHaveLength(100)
    expect(results.every((r: { result: string }) => r.result === 'created')).toBe(true)
    expect(new Set(results.map((r: { taskId: number }) => r.taskId)).size).toBe(100)
    const again = (await batch(items)).json().data.results
    expect(again.map((r: { taskId: number; result: string }) => [r.taskId, r.result])).toEqual(results.map((r: { taskId: number }) => [r.taskId, 'reused']))
  })

  it.each([
    ['an empty items array', { items: [] }, 'items', 'must hold 1 to 100 items, got 0'],
    ['101 items', { items: Array.from({ length: 101 }, () => ({})) }, 'items', 'must hold 1 to 100 items, got 101'],
    ['items that is not an array', { items: { a: 1 } }, 'items', 'must be an array'],
    ['a missing items', {}, 'items', 'is required'],
  ])('rejects %s with 400 validation_error and writes nothing', async (_name, body, field, message) => {
    const before = await taskCount()
    const res = await t.as(token, { method: 'POST', url: `${PATH}/batch`, payload: body })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ code: 400, data: { error: 'validation_error', details: [{ field, message }] }, msg: expect.any(String) })
    expect(await taskCount()).toBe(before)
  })

  it('rejects a JSON array body', async () => {
    const res = await t.as(token, { method: 'POST', url: `${PATH}/batch`, headers: { 'content-type': 'application/json' }, payload: '[]' })
    expect(res.statusCode).toBe(400)
    expect(res.json().data).toEqual({ error: 'validation_error', details: [{ field: '', message: 'must be a JSON object' }] })
  })

  it('settles concurrent overlapping batches without duplicates', async () => {
    const prefix = number('CB')
    const items = Array.from({ length: 40 }, (_, i) => ({ carrierCode: 'FEDEX', trackingNumber: `${prefix}-${i}`, callbackUrl: hook }))
    const responses = await Promise.all(Array.from({ length: 6 }, (_, k) => batch(k % 2 ? items : [...items].reverse())))
    const idByNumber = new Map<string, Set<number>>()
    let created = 0
    for (const res of responses) {
      expect(res.statusCode).toBe(200)
      for (const r of res.json().data.results) {
        if (r.result === 'created') created++
        else expect(r.result).toBe('reused')
        idByNumber.set(r.trackingNumber, (idByNumber.get(r.trackingNumber) ?? new Set()).add(r.taskId))
      }
    }
    expect(created).toBe(40)
    for (const ids of idByNumber.values()) expect(ids.size).toBe(1)
    const [row] = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM tracking_tasks WHERE tracking_number LIKE $1 || '-%'", [prefix])
    expect(row!.n).toBe(40)
  })
})
