import { CARRIER_CODES } from '../../carriers/registry'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../../test/support/test-app'

let t: TestApp
let owner: { userId: number; token: string }
let stranger: { userId: number; token: string }
const LIST = '/openapi/tracking-subscriptions/list'

interface Item {
  taskId: number
  trackingNumber: string
  carrierCode: string
  standardStatus: string
  externalReferenceNo: string
  active: boolean
  createdAt: string
  updatedAt: string
  events?: unknown[]
}

const list = async (query: string, token = owner.token) => {
  const res = await t.as(token, { method: 'GET', url: `${LIST}${query ? `?${query}` : ''}` })
  return {
    status: res.statusCode,
    body: res.json() as { data: { items: Item[]; nextCursor: string | null; error?: string; details?: { field: string; message: string }[] } },
  }
}

/** Every page of a listing, following nextCursor. */
async function walk(query: string, between: () => Promise<void> = async () => {}): Promise<Item[]> {
  const items: Item[] = []
  let cursor: string | null = null
  do {
    const page = await list([query, cursor ? `cursor=${encodeURIComponent(cursor)}` : ''].filter(Boolean).join('&'))
    expect(page.status).toBe(200)
    items.push(...page.body.data.items)
    cursor = page.body.data.nextCursor
    await between()
  } while (cursor)
  return items
}

const statuses = ['pending', 'in_transit', 'delivered', 'exception']
const ids: number[] = []

beforeAll(async () => {
  t = await createTestApp()
  owner = await t.createUser('lister')
  stranger = await t.createUser('stranger')
  // 30 tasks of the owner, created a minute apart (ties on the minute 10 and 11 share a second:
  // the id breaks them), each changed at another time; and tasks of another user beside them.
  for (let i = 0; i < 30; i++) {
    const { taskId } = await t.services.subscriptions.subscribe(owner.userId, {
      carrierCode: i % 3 === 0 ? 'UPARCEL' : 'FEDEX',
      trackingNumber: `LIST${i}`,
      callbackUrl: 'https://shop.example/hook',
      externalReferenceNo: i % 5 === 0 ? `order-${i}` : '',
    })
    ids.push(taskId)
    const minute = i === 11 ? 10 : i
    await t.db.query(
      `UPDATE tracking_tasks SET created_at = '2026-11-01T00:00:00Z'::timestamptz + make_interval(mins => $2), updated_at = '2026-11-02T00:00:00Z'::timestamptz + make_interval(mins => $3),
              standard_status = $4, milestone = $5, inactive_since = CASE WHEN $4 IN ('delivered') THEN now() END
        WHERE id = $1`,
      // Half of the exceptions are failed attempts: a status filter is read as its milestones.
      [taskId, minute, (i * 7) % 30, statuses[i % 4], i % 8 === 3 ? 'failed_attempt' : statuses[i % 4]],
    )
  }
  for (let i = 0; i < 5; i++)
    await t.services.subscriptions.subscribe(stranger.userId, { carrierCode: 'FEDEX', trackingNumber: `LIST${i}`, callbackUrl: 'https://x.example/' })
})
afterAll(() => t.close())

describe('GET /openapi/tracking-subscriptions/list', () => {
  it('lists newest first, 20 a page, without events unless asked, and only the caller’s tasks', async () => {
    const page = await list('')
    expect(page.status).toBe(200)
    expect(page.body.data.items).toHaveLength(20)
    expect(page.body.data.items.map((i) => i.trackingNumber).slice(0, 3)).toEqual(['LIST29', 'LIST28', 'LIST27'])
    expect(page.body.data.items.every((i) => !('events' in i))).toBe(true)
    expect(page.body.data.nextCursor).toEqual(expect.any(String))
    expect((await list('include=events&limit=1')).body.data.items[0]!.events).toEqual([])
    const all = await walk('limit=7')
    expect(all).toHaveLength(30)
    expect(new Set(all.map((i) => i.taskId))).toEqual(new Set(ids))
  })

  it('walks every sort in order, each task once, ties broken by id', async () => {
    for (const sort of ['-createdAt', 'createdAt', '-updatedAt', 'updatedAt'] as const) {
      const items = await walk(`sort=${sort}&limit=4`)
      const field = sort.endsWith('createdAt') ? 'createdAt' : 'updatedAt'
      const keys = items.map((i) => [i[field], i.taskId] as const)
      const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]))
      expect(keys, sort).toEqual(sort.startsWith('-') ? sorted.reverse() : sorted)
      expect(new Set(items.map((i) => i.taskId)).size).toBe(30)
    }
  })

  it('returns every task that did not change exactly once, while others are inserted', async () => {
    let inserted = 0
    const seen = await walk('limit=5&sort=-createdAt', async () => {
      // New tasks land before the walk's position (newest first): never seen, never shifting a page.
      await t.services.subscriptions.subscribe(owner.userId, {
        carrierCode: 'FEDEX',
        trackingNumber: `LATE${++inserted}`,
        callbackUrl: 'https://shop.example/hook',
      })
    })
    const mine = seen.filter((i) => ids.includes(i.taskId))
    expect(mine.map((i) => i.taskId).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b))
    await t.db.query(`DELETE FROM tracking_tasks WHERE user_id = $1 AND tracking_number LIKE 'LATE%'`, [owner.userId])
  })

  it('walks a range of the other time (read through its own index) page by page, in order, each task once', async () => {
    const range = 'updatedFrom=2026-11-02T00:00:00Z&updatedTo=2026-11-03T00:00:00Z'
    const byCreation = await walk(`${range}&limit=4`)
    expect(byCreation).toHaveLength(30)
    expect(byCreation.map((i) => i.taskId)).toEqual((await walk('limit=100')).filter((i) => ids.includes(i.taskId)).map((i) => i.taskId))
    const byChange = await walk('createdFrom=2026-11-01T00:00:00Z&createdTo=2026-11-01T00:15:00Z&sort=updatedAt&limit=3')
    expect(byChange.map((i) => i.updatedAt)).toEqual([...byChange.map((i) => i.updatedAt)].sort())
    expect(byChange).toHaveLength(15)
  })

  it('filters, each filter alone and combined with AND', async () => {
    const numbers = async (query: string) => (await walk(query)).map((i) => i.trackingNumber).sort()
    expect(await numbers('standardStatus=delivered,exception')).toEqual(
      Array.from({ length: 30 }, (_, i) => i)
        .filter((i) => i % 4 >= 2)
        .map((i) => `LIST${i}`)
        .sort(),
    )
    expect(await numbers('carrierCode=uparcel')).toEqual(Array.from({ length: 10 }, (_, i) => `LIST${i * 3}`).sort())
    expect(await numbers('trackingNumber=%20LIST7%20')).toEqual(['LIST7'])
    expect(await numbers('externalReferenceNo=order-10')).toEqual(['LIST10'])
    // An empty reference is a value like another: the tasks subscribed without one.
    expect(await numbers('externalReferenceNo=')).toEqual(
      Array.from({ length: 30 }, (_, i) => i)
        .filter((i) => i % 5 !== 0)
        .map((i) => `LIST${i}`)
        .sort(),
    )
    expect(await numbers('active=false')).toEqual(
      Array.from({ length: 30 }, (_, i) => i)
        .filter((i) => i % 4 === 2)
        .map((i) => `LIST${i}`)
        .sort(),
    )
    expect(await numbers('createdFrom=2026-11-01T00:05:00Z&createdTo=2026-11-01T00:08:00Z')).toEqual(['LIST5', 'LIST6', 'LIST7'])
    expect(await numbers('updatedFrom=2026-11-02T00:00:00Z&updatedTo=2026-11-02T00:00:01Z')).toEqual(['LIST0'])
    expect(await numbers('carrierCode=FEDEX&standardStatus=pending&active=true')).toEqual(['LIST16', 'LIST20', 'LIST28', 'LIST4', 'LIST8'])
  })

  it('reads a status as its milestones, merged in the page’s order across pages', async () => {
    const exceptions = Array.from({ length: 30 }, (_, i) => i).filter((i) => i % 4 === 3)
    for (const sort of ['-createdAt', 'updatedAt'] as const) {
      const field = sort.endsWith('createdAt') ? 'createdAt' : 'updatedAt'
      const items = await walk(`standardStatus=exception&sort=${sort}&limit=2`)
      expect(items.map((i) => i.trackingNumber).sort()).toEqual(exceptions.map((i) => `LIST${i}`).sort())
      const keys = items.map((i) => i[field])
      expect(keys).toEqual([...keys].sort((a, b) => (sort.startsWith('-') ? b.localeCompare(a) : a.localeCompare(b))))
    }
    expect((await walk('milestone=failed_attempt')).map((i) => i.trackingNumber).sort()).toEqual(['LIST11', 'LIST19', 'LIST27', 'LIST3'])
    expect((await walk('standardStatus=exception&milestone=exception,delivered')).map((i) => i.trackingNumber).sort()).toEqual(['LIST15', 'LIST23', 'LIST7'])
    // A status and a milestone of another status: nothing can match.
    expect(await list('standardStatus=delivered&milestone=failed_attempt')).toMatchObject({ status: 200, body: { data: { items: [], nextCursor: null } } })
  })

  it.each([
    ['an unknown parameter', 'colour=red', 'colour', 'is not a known parameter'],
    ['a repeated parameter', 'limit=1&limit=2', 'limit', 'must be given once'],
    ['a limit of 0', 'limit=0', 'limit', 'must be an integer from 1 to 100'],
    ['a limit of 101', 'limit=101', 'limit', 'must be an integer from 1 to 100'],
    ['a limit of 1e1', 'limit=1e1', 'limit', 'must be an integer from 1 to 100'],
    ['an unknown sort', 'sort=name', 'sort', 'must be one of -createdAt, createdAt, -updatedAt, updatedAt'],
    [
      'an unknown status',
      'standardStatus=lost',
      'standardStatus',
      'must be a comma-separated list of pending, in_transit, exception, delivered, returned, cancelled, expired (not "lost")',
    ],
    [
      'an empty item (a trailing comma)',
      'standardStatus=delivered,',
      'standardStatus',
      'must be a comma-separated list of pending, in_transit, exception, delivered, returned, cancelled, expired (not "")',
    ],
    ['an unknown carrier', 'carrierCode=ACME', 'carrierCode', `is not a supported carrier (supported: ${CARRIER_CODES.join(', ')})`],
    ['a date without a zone', 'createdFrom=2026-11-01T00:00:00', 'createdFrom', 'must be an ISO 8601 date-time with a time zone (2026-11-24T09:30:00Z)'],
    [
      'a day the month does not have',
      'createdFrom=2026-02-29T00:00:00Z',
      'createdFrom',
      'must be an ISO 8601 date-time with a time zone (2026-11-24T09:30:00Z)',
    ],
    ['an hour past 23', 'createdTo=2026-02-28T24:00:00Z', 'createdTo', 'must be an ISO 8601 date-time with a time zone (2026-11-24T09:30:00Z)'],
    [
      'an offset whose "+" was not encoded',
      'createdFrom=2026-11-01T00:00:00+01:00',
      'createdFrom',
      'must be an ISO 8601 date-time with a time zone: a "+" in a query string reads as a space, so send an offset as %2B01:00 (or use Z)',
    ],
    ['an empty range', 'createdFrom=2026-11-02T00:00:00Z&createdTo=2026-11-01T00:00:00Z', 'createdFrom', 'must be before createdTo'],
    ['active that is not a boolean', 'active=yes', 'active', 'must be true or false'],
    ['an include other than events', 'include=webhooks', 'include', 'must be one of events'],
    ['a cursor of garbage', 'cursor=abc', 'cursor', 'is not a cursor of this API'],
    ['a NUL in a filter (no text can hold one)', 'externalReferenceNo=a%00b', 'externalReferenceNo', 'must not contain NUL characters'],
    ['a control character in a reference (none is ever stored)', 'externalReferenceNo=a%07b', 'externalReferenceNo', 'must not contain control characters'],
  ])('refuses %s with validation_error', async (_name, query, field, message) => {
    const page = await list(query)
    expect(page.status).toBe(400)
    expect(page.body.data).toEqual({ error: 'validation_error', details: [{ field, message }] })
  })

  it('refuses a cursor changed by hand, used with other filters or sort, or by another user', async () => {
    const cursor = (await list('limit=2&standardStatus=pending')).body.data.nextCursor!
    const [body, mac] = cursor.split('.')
    const forged = `${Buffer.from(JSON.stringify(['2099-01-01 00:00:00+00', 1])).toString('base64url')}.${mac}`
    const tampered = `${body}.${Buffer.from('0123456789abcdef').toString('base64url')}`
    for (const [query, token] of [
      [`limit=2&standardStatus=pending&cursor=${forged}`, owner.token],
      [`limit=2&standardStatus=pending&cursor=${tampered}`, owner.token],
      [`limit=2&standardStatus=in_transit&cursor=${cursor}`, owner.token],
      [`limit=2&standardStatus=pending&sort=createdAt&cursor=${cursor}`, owner.token],
      [`limit=2&standardStatus=pending&cursor=${cursor}`, stranger.token],
    ] as const) {
      const page = await list(query, token)
      expect(page.status, query).toBe(400)
      expect(page.body.data.details![0]!.field).toBe('cursor')
    }
    // The limit may change between pages.
    expect((await list(`limit=5&standardStatus=pending&cursor=${cursor}`)).status).toBe(200)
  })

  it('never shows another user’s tasks, whatever the filter', async () => {
    const theirs = await walk('trackingNumber=LIST1')
    expect(theirs.map((i) => i.taskId)).toEqual([ids[1]])
    const strangers = (await list('', stranger.token)).body.data.items
    expect(strangers).toHaveLength(5)
    expect(strangers.some((i) => ids.includes(i.taskId))).toBe(false)
  })
})
