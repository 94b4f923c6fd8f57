import { parse } from 'csv-parse/sync'
import { beforeAll, describe, expect, it } from 'vitest'
import { PATH, subscriptionApi } from '../../../test/support/subscription-api'
import type { TestApp } from '../../../test/support/test-app'
import { EXPORT_COLUMNS } from '../../domain/csv-columns'

// CSV in and out through the API: an import's rows judged one by one through the batch path, its
// answers as JSON and CSV, the header's rules and the row limit; an export of the list's tasks,
// streamed across pages, with formula cells made inert, and tenancy.
const api = subscriptionApi()
const { number } = api
let t: TestApp
let token: string
let otherToken: string
beforeAll(() => ({ t, token, otherToken } = api))

const upload = (csv: string, headers: Record<string, string> = {}, as = token) =>
  t.as(as, { method: 'POST', url: `${PATH}/import`, headers: { 'content-type': 'text/csv', ...headers }, payload: csv })
const download = (query = '', as = token) => t.as(as, { method: 'GET', url: `${PATH}/export${query}` })

describe('POST /openapi/tracking-subscriptions/import', () => {
  it('judges each row alone, through the batch path, and answers each with its line', async () => {
    const [a, b, c] = [number('CSV'), number('CSV'), number('CSV')]
    const csv = [
      '\uFEFFcarrierCode,TrackingNumber,callbackUrl,externalReferenceNo,recipientEmail,recipientLanguage',
      `FEDEX,${a},https://shop.example/hook,"Order 1, gift",ana@example.com,de`,
      `FEDEX,${b},not-a-url,,,`,
      `FEDEX,${c},https://shop.example/hook`,
      `UPS,1Z999AA10123456784,https://shop.example/hook,"two`,
      `lines",,`,
      `UPS,1Z999AA10123456784,https://shop.example/hook,"one line",,`,
      `FEDEX,${a},https://shop.example/hook,,,`,
      '',
    ].join('\r\n')
    const res = await upload(csv)
    expect(res.statusCode, res.body).toBe(200)
    const { results } = res.json().data as { results: { line: number; result: string; taskId: number; message: string }[] }
    expect(
      results.map((r) => [r.line, r.result]),
      JSON.stringify(results),
    ).toEqual([
      [2, 'created'],
      [3, 'validation_error'],
      [4, 'validation_error'],
      [5, 'validation_error'],
      [7, 'created'],
      [8, 'reused'],
    ])
    expect(results[1]!.message).toContain('callbackUrl')
    expect(results[2]!.message).toBe('has 3 cells where the header names 6')
    // A quoted cell may span lines (this one may not hold a line break): the next row's line counts them.
    expect(results[3]!.message).toBe('externalReferenceNo must not contain control characters')
    expect(results[5]!.taskId).toBe(results[0]!.taskId)
    const task = (await t.as(token, { method: 'GET', url: `${PATH}/${results[0]!.taskId}` })).json().data
    expect(task).toMatchObject({ externalReferenceNo: 'Order 1, gift', recipient: { email: 'ana@example.com', language: 'de' } })
    expect((await t.as(token, { method: 'GET', url: `${PATH}/${results[4]!.taskId}` })).json().data.externalReferenceNo).toBe('one line')
  })

  it('answers the rows as CSV when asked', async () => {
    // An empty line is skipped, and counted.
    const csv = `carrierCode,trackingNumber,callbackUrl\r\nFEDEX,${number('CSV')},https://shop.example/hook\r\n\r\nFEDEX,,https://shop.example/hook\r\n`
    const res = await upload(csv, { accept: 'text/csv' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    const rows = parse(res.body) as string[][]
    expect(rows[0]).toEqual(['line', 'result', 'taskId', 'carrierCode', 'trackingNumber', 'message'])
    expect(rows.slice(1).map((r) => [r[0], r[1]])).toEqual([
      ['2', 'created'],
      ['4', 'validation_error'],
    ])
    expect(res.body).toContain('\r\n')
  })

  it('refuses a file whose header is wrong, or that is not CSV, as a whole', async () => {
    for (const [csv, field, message] of [
      ['carrierCode,trackingNumber,callbackUrl,color\r\nFEDEX,1,https://x.example/\r\n', 'header', 'column 4 of the header, "color", is not one of'],
      ['carrierCode,trackingNumber\r\nFEDEX,1\r\n', 'header', 'the header must name callbackUrl'],
      ['carrierCode,trackingNumber,callbackUrl,trackingnumber\r\n', 'header', 'the header names trackingNumber twice'],
      ['carrierCode,trackingNumber,callbackUrl\r\n', 'body', 'must hold at least one row after the header'],
      ['', 'body', 'must hold a header row'],
      ['carrierCode,trackingNumber,callbackUrl\r\nFEDEX,"unclosed,https://x.example/\r\n', 'body', 'is not CSV'],
    ] as const) {
      const res = await upload(csv)
      expect(res.statusCode, csv).toBe(400)
      const { error, details } = res.json().data
      expect(error).toBe('validation_error')
      expect(details[0].field).toBe(field)
      expect(details[0].message).toContain(message)
    }
    expect((await t.as(token, { method: 'POST', url: `${PATH}/import`, headers: { 'content-type': 'text/plain' }, payload: 'x' })).statusCode).toBe(415)
    expect((await t.as(token, { method: 'POST', url: `${PATH}/import`, headers: { 'content-type': 'text/csv' }, payload: 'x' })).statusCode).toBe(400)
    expect((await t.app.inject({ method: 'POST', url: `${PATH}/import`, headers: { 'content-type': 'text/csv' }, payload: 'x' })).statusCode).toBe(401)
  })

  it('takes 10,000 rows and answers each one past them with an error of its own', async () => {
    const rows = Array.from({ length: 10_002 }, (_, i) => `FEDEX,LIMIT${i},ftp://not-http.example/`)
    const res = await upload(['carrierCode,trackingNumber,callbackUrl', ...rows].join('\n'))
    expect(res.statusCode).toBe(200)
    const { results } = res.json().data as { results: { line: number; result: string; message: string }[] }
    expect(results).toHaveLength(10_002)
    expect(results[9_999]!.message).toContain('callbackUrl')
    expect(results.slice(10_000)).toEqual([
      { line: 10_002, trackingNumber: '', carrierCode: '', taskId: 0, result: 'validation_error', message: 'beyond the 10000 rows one import takes' },
      { line: 10_003, trackingNumber: '', carrierCode: '', taskId: 0, result: 'validation_error', message: 'beyond the 10000 rows one import takes' },
    ])
  })
})

describe('GET /openapi/tracking-subscriptions/export', () => {
  it("streams every task of the list's filters as RFC 4180 CSV, across pages, with formula cells made inert", async () => {
    const { userId, token: own } = await t.createUser('exporter')
    const rows = Array.from(
      { length: 1_234 },
      (_, i) => `FEDEX,EXP${userId}x${i},https://shop.example/hook,${i === 7 ? '"=HYPERLINK(""https://evil.example"")"' : `ref ${i}`}`,
    )
    expect((await upload(['carrierCode,trackingNumber,callbackUrl,externalReferenceNo', ...rows].join('\n'), {}, own)).statusCode).toBe(200)
    await upload(`carrierCode,trackingNumber,callbackUrl\nUPS,1Z999AA10123456784,https://shop.example/hook\n`, {}, own)

    const res = await download('?sort=createdAt', own)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.headers['content-disposition']).toBe('attachment; filename="tracking-subscriptions.csv"')
    const table = parse(res.body) as string[][]
    expect(table[0]).toEqual([...EXPORT_COLUMNS])
    expect(table).toHaveLength(1 + 1_235)
    const column = (name: (typeof EXPORT_COLUMNS)[number]) => EXPORT_COLUMNS.indexOf(name)
    expect(new Set(table.slice(1).map((r) => r[column('taskId')])).size).toBe(1_235)
    const row = (i: number) => table.find((r) => r[column('trackingNumber')] === `EXP${userId}x${i}`)!
    expect(row(0)[column('externalReferenceNo')]).toBe('ref 0')
    expect(row(7)[column('externalReferenceNo')]).toBe(`'=HYPERLINK("https://evil.example")`)
    expect(row(0)[column('standardStatus')]).toBe('pending')
    expect(row(0)[column('trackingPageUrl')]).toMatch(/\/t\/[A-Za-z0-9_-]+$/)
    expect(res.body.split('\r\n')).toHaveLength(1 + 1_235 + 1)

    // The list's filters; another user's tasks are never there; a bad filter is a 400 envelope.
    const ups = parse((await download('?carrierCode=ups', own)).body) as string[][]
    expect(ups.slice(1).map((r) => r[column('carrierCode')])).toEqual(['UPS'])
    const theirs = parse((await download('', otherToken)).body) as string[][]
    expect(theirs.slice(1).some((r) => r[column('trackingNumber')]!.startsWith(`EXP${userId}x`))).toBe(false)
    const bad = await download('?carrierCode=NOPE', own)
    expect(bad.statusCode).toBe(400)
    expect(bad.json().data.error).toBe('validation_error')
    expect((await download('?limit=5', own)).statusCode).toBe(400)
  })
})
