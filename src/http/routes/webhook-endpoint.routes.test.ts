import { CARRIER_CODES } from '../../carriers/registry'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../../test/support/test-app'
import { WebhookReceiver } from '../../../test/support/webhook-receiver'
import { OutboxRepository } from '../../db/outbox.repository'
import { ENDPOINTS_PER_USER } from '../../domain/webhook-endpoint'
import { REPLAY_MAX } from '../../services/delivery-log.service'

const PATH = '/openapi/webhook-endpoints'
let t: TestApp
let receiver: WebhookReceiver

beforeAll(async () => {
  t = await createTestApp()
  receiver = new WebhookReceiver()
  await receiver.start()
})
afterAll(async () => {
  await receiver.stop()
  await t.close()
})

type User = Awaited<ReturnType<TestApp['createUser']>>
const call = (user: User, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.as(user.token, { method, url, ...(payload ? { payload } : {}) })
const create = async (user: User, body: object = {}) => {
  const res = await call(user, 'POST', PATH, { url: 'https://shop.example/events', eventTypes: ['tracking.status_changed'], ...body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { endpointId: number; secret: string }
}

describe('webhook endpoints', () => {
  it('creates with a whsec_ secret shown once; lists, reads, changes and deletes; another user gets the 404 of a missing one', async () => {
    const user = await t.createUser()
    const other = await t.createUser()
    const res = await call(user, 'POST', PATH, {
      url: 'https://shop.example/a',
      eventTypes: ['tracking.milestone_changed', 'tracking.deleted'],
      carrierCodes: [' fedex '],
      milestones: ['out_for_delivery'],
      description: 'buyers',
    })
    const created = res.json().data
    expect(Object.keys(created)).toEqual([
      'endpointId',
      'url',
      'eventTypes',
      'description',
      'carrierCodes',
      'milestones',
      'enabled',
      'createdAt',
      'updatedAt',
      'secret',
    ])
    expect(created).toMatchObject({
      url: 'https://shop.example/a',
      carrierCodes: ['FEDEX'],
      milestones: ['out_for_delivery'],
      enabled: true,
      description: 'buyers',
    })
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)

    const listed = (await call(user, 'GET', PATH)).json().data.endpoints
    expect(listed).toHaveLength(1)
    expect(listed[0]).not.toHaveProperty('secret')
    const id = created.endpointId
    expect((await call(user, 'GET', `${PATH}/${id}`)).json().data).toEqual(listed[0])

    const patched = (await call(user, 'PATCH', `${PATH}/${id}`, { enabled: false, milestones: [] })).json().data
    expect(patched).toMatchObject({
      enabled: false,
      milestones: [],
      url: 'https://shop.example/a',
      eventTypes: ['tracking.milestone_changed', 'tracking.deleted'],
    })

    for (const [method, url] of [
      ['GET', `${PATH}/${id}`],
      ['PATCH', `${PATH}/${id}`],
      ['DELETE', `${PATH}/${id}`],
      ['POST', `${PATH}/${id}/secret/rotate`],
      ['POST', `${PATH}/${id}/test`],
    ] as const) {
      const foreign = await call(other, method, url, method === 'PATCH' ? { enabled: true } : undefined)
      const missing = await call(other, method, url.replace(String(id), '987654321'), method === 'PATCH' ? { enabled: true } : undefined)
      expect(foreign.statusCode, `${method} ${url}`).toBe(404)
      expect(foreign.body).toBe(missing.body)
    }
    expect((await call(other, 'GET', PATH)).json().data.endpoints).toEqual([])

    expect((await call(user, 'DELETE', `${PATH}/${id}`)).json().data).toEqual({ endpointId: id, deleted: true })
    expect((await call(user, 'GET', `${PATH}/${id}`)).statusCode).toBe(404)
  })

  it('refuses bad fields with validation_error naming each, unknown fields too', async () => {
    const user = await t.createUser()
    const cases: [object, string][] = [
      [{ url: 'ftp://x.example/', eventTypes: ['tracking.deleted'] }, 'url'],
      [{ url: 'https://x.example/', eventTypes: [] }, 'eventTypes'],
      [{ url: 'https://x.example/', eventTypes: ['tracking.everything'] }, 'eventTypes'],
      [{ url: 'https://x.example/', eventTypes: ['webhook.test'] }, 'eventTypes'],
      [{ url: 'https://x.example/', eventTypes: ['tracking.deleted'], carrierCodes: ['ACME'] }, 'carrierCodes'],
      [{ url: 'https://x.example/', eventTypes: ['tracking.deleted'], carrierCodes: ['fedex', 'FEDEX'] }, 'carrierCodes'],
      [{ url: 'https://x.example/', eventTypes: ['tracking.deleted'], milestones: ['arrived'] }, 'milestones'],
      [{ url: 'https://x.example/', eventTypes: ['tracking.deleted'], enabled: 'yes' }, 'enabled'],
      [{ url: 'https://x.example/', eventTypes: ['tracking.deleted'], description: 'x'.repeat(201) }, 'description'],
      [{ url: 'https://x.example/', eventTypes: ['tracking.deleted'], secret: 'whsec_mine' }, 'secret'],
      [{ eventTypes: ['tracking.deleted'] }, 'url'],
    ]
    for (const [body, field] of cases) {
      const res = await call(user, 'POST', PATH, body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().data.error).toBe('validation_error')
      expect(
        res.json().data.details.some((d: { field: string }) => d.field === field || d.field.startsWith(`${field}.`)),
        JSON.stringify(body),
      ).toBe(true)
    }
    // In the words of every other endpoint, not the schema validator's.
    const worded: [object, string, string][] = [
      [{ url: 'not a url', eventTypes: ['tracking.deleted'] }, 'url', 'must be an absolute http or https URL'],
      [{ url: 'https://x.example/', eventTypes: [] }, 'eventTypes', 'must hold at least 1 item'],
      [
        { url: 'https://x.example/', eventTypes: ['tracking.deleted', 'tracking.deleted'] },
        'eventTypes',
        'must not repeat a value (items 0 and 1 are the same)',
      ],
      [
        { url: 'https://x.example/', eventTypes: ['tracking.deleted'], carrierCodes: ['FEDEX', 'ACME'] },
        'carrierCodes.1',
        `must be one of ${CARRIER_CODES.join(', ')}`,
      ],
      [
        { url: 'https://x.example/', eventTypes: ['tracking.deleted'], carrierCodes: ['fedex', 'FEDEX'] },
        'carrierCodes',
        'must not repeat a value (items 0 and 1 are the same)',
      ],
    ]
    for (const [body, field, message] of worded)
      expect((await call(user, 'POST', PATH, body)).json().data.details, JSON.stringify(body)).toEqual([{ field, message }])
    const { endpointId } = await create(user)
    expect((await call(user, 'PATCH', `${PATH}/${endpointId}`, {})).statusCode).toBe(400)
    expect((await call(user, 'PATCH', `${PATH}/${endpointId}`, { url: 'not a url' })).statusCode).toBe(400)
    expect((await call(user, 'GET', `${PATH}/abc`)).statusCode).toBe(400)
  })

  it(`holds at most ${ENDPOINTS_PER_USER} a user, even when created side by side`, async () => {
    const user = await t.createUser()
    const answers = await Promise.all(
      Array.from({ length: ENDPOINTS_PER_USER + 5 }, () => call(user, 'POST', PATH, { url: 'https://shop.example/e', eventTypes: ['tracking.deleted'] })),
    )
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(ENDPOINTS_PER_USER)
    const refused = answers.filter((a) => a.statusCode !== 200)
    expect(refused).toHaveLength(5)
    for (const a of refused) expect(a.json()).toMatchObject({ code: 409, data: { error: 'limit_reached' } })
    expect((await call(user, 'GET', PATH)).json().data.endpoints).toHaveLength(ENDPOINTS_PER_USER)
  })

  it('tests an endpoint: webhook.test signed with its secret, the answer reported; rotation signs with both for 24 h', async () => {
    const user = await t.createUser()
    const { endpointId, secret } = await create(user, { url: receiver.on('/test-call', (n) => ({ status: n === 1 ? 204 : 500 })) })
    const first = (await call(user, 'POST', `${PATH}/${endpointId}/test`)).json().data
    expect(first).toMatchObject({ responseStatusCode: 204, errorMessage: '' })
    expect(first.durationMs).toBeGreaterThanOrEqual(0)
    const [request] = receiver.requests('/test-call')
    const verified = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as { type: string; data: object }
    expect(verified).toMatchObject({ type: 'webhook.test', data: { endpointId } })
    expect(() => new Webhook(user.webhookSecret).verify(request!.body, request!.headers as Record<string, string>)).toThrow()

    const rotated = (await call(user, 'POST', `${PATH}/${endpointId}/secret/rotate`)).json().data
    expect(rotated.secret).not.toBe(secret)
    expect(Date.parse(rotated.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000)
    const second = (await call(user, 'POST', `${PATH}/${endpointId}/test`)).json().data
    expect(second).toMatchObject({ responseStatusCode: 500 })
    expect(second.errorMessage).not.toBe('')
    const after = receiver.requests('/test-call')[1]!
    for (const s of [secret, rotated.secret]) expect(() => new Webhook(s).verify(after.body, after.headers as Record<string, string>)).not.toThrow()
    // Nothing stored, nothing retried.
    expect((await call(user, 'GET', '/openapi/webhook-deliveries')).json().data.items).toEqual([])
  })
})

describe('the delivery log and bulk replay', () => {
  /** Deliveries of one task of the user, created `minutesAgo` apart going back, with a status. */
  async function seed(user: User, count: number, status: string, endpointId: number | null = null, at = "now() - interval '1 hour'") {
    const { taskId } = await t.services.subscriptions.subscribe(user.userId, {
      carrierCode: 'FEDEX',
      trackingNumber: `LOG${Date.now()}${Math.random().toString(36).slice(2, 6)}`,
      callbackUrl: 'https://shop.example/cb',
    })
    await t.db.query(
      `INSERT INTO deliveries (task_id, user_id, endpoint_id, target, webhook_id, payload, status, attempt_count, created_at, event_type)
       SELECT $1, $2, $3, CASE WHEN $3::bigint IS NULL THEN 'callback' ELSE 'endpoint' END, 'msg_' || md5(random()::text || g), '{}', $4, 8, ${at} - make_interval(secs => g), CASE WHEN $3::bigint IS NULL THEN 'tracking.status_changed' ELSE 'tracking.events_added' END
         FROM generate_series(1, $5::int) g`,
      [taskId, user.userId, endpointId, status, count],
    )
    return taskId
  }

  it('lists every delivery of the account newest first, filtered, by cursor; never another user’s', async () => {
    const user = await t.createUser()
    const other = await t.createUser()
    const { endpointId } = await create(user)
    const task = await seed(user, 30, 'success')
    await seed(user, 7, 'failed', endpointId)
    await seed(other, 5, 'failed')
    const seen: { webhookId: string; createdAt: string }[] = []
    let cursor: string | null = null
    do {
      const page: { items: { webhookId: string; createdAt: string }[]; nextCursor: string | null } = (
        await call(user, 'GET', `/openapi/webhook-deliveries?limit=8${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).json().data
      seen.push(...page.items)
      cursor = page.nextCursor
    } while (cursor)
    expect(seen).toHaveLength(37)
    expect(new Set(seen.map((s) => s.webhookId)).size).toBe(37)
    expect(seen.map((s) => s.createdAt)).toEqual([...seen.map((s) => s.createdAt)].sort().reverse())

    const byEndpoint = (await call(user, 'GET', `/openapi/webhook-deliveries?endpointId=${endpointId}&limit=100`)).json().data.items
    expect(byEndpoint).toHaveLength(7)
    expect(byEndpoint[0]).toMatchObject({ endpointId, eventType: 'tracking.events_added', status: 'failed', attemptCount: 8 })
    expect((await call(user, 'GET', `/openapi/webhook-deliveries?status=failed&limit=100`)).json().data.items).toHaveLength(7)
    expect((await call(user, 'GET', `/openapi/webhook-deliveries?taskId=${task}&eventType=tracking.status_changed&limit=100`)).json().data.items).toHaveLength(
      30,
    )

    const bad = [
      'status=lost',
      'eventType=webhook.unknown',
      'limit=0',
      'endpointId=x',
      'createdFrom=yesterday',
      'createdFrom=2026-01-02T00:00:00Z&createdTo=2026-01-01T00:00:00Z',
      'cursor=abc',
      'colour=red',
    ]
    for (const query of bad) expect((await call(user, 'GET', `/openapi/webhook-deliveries?${query}`)).json().data.error, query).toBe('validation_error')
    // A cursor of this user's listing is refused for another user, and with other filters.
    const firstPage = (await call(user, 'GET', '/openapi/webhook-deliveries?limit=2')).json().data
    expect((await call(other, 'GET', `/openapi/webhook-deliveries?limit=2&cursor=${encodeURIComponent(firstPage.nextCursor)}`)).statusCode).toBe(400)
    expect((await call(user, 'GET', `/openapi/webhook-deliveries?limit=2&status=success&cursor=${encodeURIComponent(firstPage.nextCursor)}`)).statusCode).toBe(
      400,
    )
  })

  it(`replays the failed deliveries of a window, at most ${REPLAY_MAX} a call, once; a disabled endpoint's stay failed`, async () => {
    const user = await t.createUser()
    const other = await t.createUser()
    const { endpointId } = await create(user)
    const disabled = await create(user)
    await seed(user, REPLAY_MAX + 50, 'failed')
    await seed(user, 3, 'failed', endpointId)
    await seed(user, 4, 'failed', disabled.endpointId)
    await seed(user, 5, 'failed', null, "now() - interval '3 days'")
    await seed(other, 6, 'failed')
    await call(user, 'PATCH', `${PATH}/${disabled.endpointId}`, { enabled: false })
    const window = { status: 'failed', createdFrom: new Date(Date.now() - 86_400_000).toISOString(), createdTo: new Date().toISOString() }
    const replay = async (body: object = window) => (await call(user, 'POST', '/openapi/webhook-deliveries/redeliver', body)).json()

    const wakes = t.wakeups.deliveries
    expect((await replay()).data).toEqual({ queued: REPLAY_MAX })
    expect(t.wakeups.deliveries).toBe(wakes + 1)
    expect((await replay()).data).toEqual({ queued: 53 })
    expect((await replay()).data).toEqual({ queued: 0 })
    const counts = await t.db.query<{ user_id: number; endpoint_id: number | null; status: string; n: number }>(
      `SELECT user_id, endpoint_id, status, count(*)::int AS n FROM deliveries WHERE user_id IN ($1, $2) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [user.userId, other.userId],
    )
    expect(counts.map((c) => [c.user_id, c.endpoint_id, c.status, c.n])).toEqual([
      [user.userId, endpointId, 'pending', 3],
      [user.userId, disabled.endpointId, 'failed', 4],
      [user.userId, null, 'failed', 5],
      [user.userId, null, 'pending', REPLAY_MAX + 50],
      [other.userId, null, 'failed', 6],
    ])
    // Replayed on a fresh cycle of the schedule, the same webhook-id; only for this endpoint when named.
    const [one] = await t.db.query<{ cycle_start_attempt: number; next_attempt_at: Date }>(
      `SELECT cycle_start_attempt, next_attempt_at FROM deliveries WHERE endpoint_id = $1 LIMIT 1`,
      [endpointId],
    )
    expect(one!.cycle_start_attempt).toBe(8)
    expect((await replay({ ...window, endpointId: disabled.endpointId })).data).toEqual({ queued: 0 })
    for (const body of [
      { ...window, status: 'success' },
      { ...window, createdTo: window.createdFrom },
      { createdFrom: window.createdFrom },
      { ...window, extra: 1 },
    ]) {
      expect((await replay(body)).data.error, JSON.stringify(body)).toBe('validation_error')
    }
    // A body's date-times follow the query string's rule: seconds optional, a "T", an offset with its colon.
    for (const createdFrom of ['yesterday', '2026-11-24 09:30:00Z', '2026-11-24T09:30:00+0100', '2026-11-31T09:30:00Z']) {
      expect((await replay({ ...window, createdFrom })).data.details, createdFrom).toEqual([
        { field: 'createdFrom', message: 'must be an ISO 8601 date-time with a time zone (2026-11-24T09:30:00Z)' },
      ])
    }
    // A window written that way, before any delivery of this test: accepted, and holding none.
    expect((await replay({ ...window, createdFrom: '2026-11-24T09:30+01:00', createdTo: '2026-11-24T10:30+01:00' })).data).toEqual({ queued: 0 })
  })

  it('disabling an endpoint fails its waiting deliveries and sends it nothing until enabled', async () => {
    const user = await t.createUser()
    const { endpointId } = await create(user, { url: receiver.on('/disabled', () => ({ status: 200 })) })
    await seed(user, 3, 'pending', endpointId, 'now()')
    // Only these are due: the claims below see nothing else.
    await t.db.query(
      `UPDATE deliveries SET next_attempt_at = now() + interval '1 day' WHERE endpoint_id IS DISTINCT FROM $1 AND status IN ('pending', 'retry_wait')`,
      [endpointId],
    )
    await t.db.query(`UPDATE deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [endpointId])
    await call(user, 'PATCH', `${PATH}/${endpointId}`, { enabled: false })
    const rows = await t.db.query<{ status: string; error_message: string }>('SELECT status, error_message FROM deliveries WHERE endpoint_id = $1', [
      endpointId,
    ])
    expect(rows).toEqual(Array.from({ length: 3 }, () => ({ status: 'failed', error_message: 'endpoint disabled' })))
    // Made pending behind its back, it is still not claimed while disabled.
    await t.db.query(`UPDATE deliveries SET status = 'pending', next_attempt_at = now() WHERE endpoint_id = $1`, [endpointId])
    const claimed = await new OutboxRepository(t.db).claim('webhook', 1000, 10_000, 1000)
    expect(claimed.filter((c) => c.address.endsWith('/disabled'))).toEqual([])
    await call(user, 'PATCH', `${PATH}/${endpointId}`, { enabled: true })
    const again = await new OutboxRepository(t.db).claim('webhook', 1000, 10_000, 1000)
    expect(again.filter((c) => c.address.endsWith('/disabled'))).toHaveLength(3)
  })
})
