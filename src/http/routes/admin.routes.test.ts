import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../test/support/test-app'

let t: TestApp
// A second "process" on the same database: its own caches, its own settings reads.
let other: TestApp
/** The clock of both processes' token caches. */
let clock = Date.now()

beforeAll(async () => {
  t = await createTestApp({ tokenCacheTtlMs: 300, tokenCacheClock: () => clock })
  other = await createTestApp({ database: t.database, tokenCacheTtlMs: 300, tokenCacheClock: () => clock })
})
afterAll(async () => {
  await other.close()
  await t.close()
})

function admin(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
  return t.as(ADMIN_TOKEN, { method, url, ...(payload ? { payload } : {}) })
}

const subscription = { carrierCode: 'FEDEX', trackingNumber: 'ADM1', callbackUrl: 'https://shop.example/hook' }

describe('admin API', () => {
  it('creates a user with a random token, stored only as a hash, and a whsec_ secret', async () => {
    const res = await admin('POST', '/admin/api-users', { name: ' acme ' })
    expect(res.statusCode).toBe(200)
    const { data } = res.json()
    expect(data).toEqual({
      userId: expect.any(Number),
      name: 'acme',
      token: expect.stringMatching(/^trk_[A-Za-z0-9_-]{43}$/),
      webhookSecret: expect.any(String),
    })
    expect(Buffer.from(data.webhookSecret.replace(/^whsec_/, ''), 'base64')).toHaveLength(32)
    expect(data.webhookSecret.startsWith('whsec_')).toBe(true)

    const rows = await t.db.query<{ token_hash: Buffer }>('SELECT token_hash FROM api_tokens WHERE user_id = $1', [data.userId])
    expect(rows).toHaveLength(1)
    expect(rows[0]!.token_hash).toHaveLength(32)
    const dump = JSON.stringify(await t.db.query('SELECT * FROM api_tokens'))
    expect(dump).not.toContain(data.token)

    const sub = await t.as(data.token, { method: 'POST', url: '/openapi/tracking-subscriptions', payload: subscription })
    expect(sub.statusCode).toBe(200)
  })

  it('gives a user several tokens, each revocable, revocation reaching every process within seconds', async () => {
    const user = (await admin('POST', '/admin/api-users', { name: 'multi' })).json().data
    const second = (await admin('POST', `/admin/api-users/${user.userId}/tokens`)).json().data
    expect(second).toEqual({ tokenId: expect.any(Number), token: expect.stringMatching(/^trk_/) })
    expect(second.token).not.toBe(user.token)

    const query = (app: TestApp, token: string) => app.as(token, { method: 'GET', url: '/openapi/tracking-subscriptions?trackingNumber=NONE' })
    // Both tokens work on both processes (404: authenticated, no such task); caches now warm.
    for (const app of [t, other]) for (const token of [user.token, second.token]) expect((await query(app, token)).statusCode).toBe(404)

    const listed = (await admin('GET', `/admin/api-users/${user.userId}/tokens`)).json().data.tokens
    expect(listed).toHaveLength(2)
    expect(listed.every((tk: { revokedAt: string | null }) => tk.revokedAt === null)).toBe(true)

    const revoke = await admin('DELETE', `/admin/api-users/${user.userId}/tokens/${second.tokenId}`)
    expect(revoke.json()).toEqual({ code: 200, data: { tokenId: second.tokenId, revoked: true }, msg: 'success' })

    // Each process answers from its cache until the cache's lifetime has passed on its clock, and
    // from the database at once after it.
    expect((await query(other, second.token)).statusCode).toBe(404)
    clock += 301
    expect((await query(other, second.token)).statusCode).toBe(401)
    expect((await query(t, second.token)).statusCode).toBe(401)
    expect((await query(other, user.token)).statusCode).toBe(404)
    const after = (await admin('GET', `/admin/api-users/${user.userId}/tokens`)).json().data.tokens
    expect(after.find((tk: { tokenId: number }) => tk.tokenId === second.tokenId).revokedAt).toEqual(expect.any(String))
  })

  it('answers 404 for tokens of another user or of a missing user', async () => {
    const a = (await admin('POST', '/admin/api-users', { name: 'a' })).json().data
    const b = (await admin('POST', '/admin/api-users', { name: 'b' })).json().data
    const bToken = (await admin('POST', `/admin/api-users/${b.userId}/tokens`)).json().data
    const wrongOwner = await admin('DELETE', `/admin/api-users/${a.userId}/tokens/${bToken.tokenId}`)
    expect(wrongOwner.statusCode).toBe(404)
    expect(wrongOwner.json().data.error).toBe('not_found')
    expect((await admin('POST', '/admin/api-users/999999/tokens')).statusCode).toBe(404)
    expect((await admin('POST', '/admin/api-users/999999/webhook-secret/rotate')).statusCode).toBe(404)
    expect((await admin('GET', '/admin/api-users/999999/tokens')).statusCode).toBe(404)
  })

  it('rotates the webhook secret, keeping the old one for 24 hours', async () => {
    const user = (await admin('POST', '/admin/api-users', { name: 'rotor' })).json().data
    const res = await admin('POST', `/admin/api-users/${user.userId}/webhook-secret/rotate`)
    expect(res.statusCode).toBe(200)
    const { webhookSecret } = res.json().data
    expect(webhookSecret).toMatch(/^whsec_/)
    expect(webhookSecret).not.toBe(user.webhookSecret)
    const [row] = await t.db.query<{ webhook_secret: string; previous_webhook_secret: string; hours: number }>(
      `SELECT webhook_secret, previous_webhook_secret,
              round(extract(epoch FROM previous_webhook_secret_expires_at - now()) / 3600)::int AS hours
         FROM api_users WHERE id = $1`,
      [user.userId],
    )
    expect(row).toEqual({ webhook_secret: webhookSecret, previous_webhook_secret: user.webhookSecret, hours: 24 })
  })

  it('lists users', async () => {
    const res = await admin('GET', '/admin/api-users')
    expect(res.statusCode).toBe(200)
    expect(res.json().data.users.length).toBeGreaterThan(0)
    expect(res.json().data.users[0]).toEqual({ userId: expect.any(Number), name: expect.any(String), createdAt: expect.stringMatching(/Z$/) })
  })

  it.each([
    ['an empty name', { name: '  ' }],
    ['a numeric name', { name: 5 }],
    ['a missing name', {}],
    ['a name with a control character', { name: 'a\u0000b' }],
  ])('rejects %s', async (_name, body) => {
    const res = await admin('POST', '/admin/api-users', body)
    expect(res.statusCode).toBe(400)
    expect(res.json().data.error).toBe('validation_error')
  })

  it('rejects a missing or wrong admin token with 401', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-of-some-length' }, { authorization: `Basic ${ADMIN_TOKEN}` }]) {
      const res = await t.app.inject({ method: 'GET', url: '/admin/settings', headers })
      expect(res.statusCode).toBe(401)
      expect(res.json()).toEqual({ code: 401, data: { error: 'unauthorized' }, msg: expect.any(String) })
    }
  })

  it('does not accept an API token as admin token, nor the admin token as API token', async () => {
    const user = (await admin('POST', '/admin/api-users', { name: 'plain' })).json().data
    expect((await t.as(user.token, { method: 'GET', url: '/admin/settings' })).statusCode).toBe(401)
    expect((await t.as(ADMIN_TOKEN, { method: 'GET', url: '/openapi/tracking-subscriptions?taskId=1' })).statusCode).toBe(401)
  })
})

describe('settings', () => {
  it('defaults batchMaxItems to 100 and applies a change to the next request of every process', async () => {
    expect((await admin('GET', '/admin/settings')).json()).toEqual({
      code: 200,
      data: {
        batchMaxItems: 100,
        retentionDays: 0,
        predictionSharing: 'all',
        consoleSessionHours: 8,
        auditRetentionDays: 365,
        recipientRetentionDays: 30,
        carrierAutoCorrect: 'off',
        carrierAutoCorrectHours: 48,
      },
      msg: 'success',
    })
    const user = (await admin('POST', '/admin/api-users', { name: 'batcher' })).json().data
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ ...subscription, trackingNumber: `SET${n}-${i}` }))
    const batch = (app: TestApp, n: number) =>
      app.as(user.token, { method: 'POST', url: '/openapi/tracking-subscriptions/batch', payload: { items: items(n) } })

    expect((await batch(other, 3)).statusCode).toBe(200)
    const patched = await admin('PATCH', '/admin/settings', { batchMaxItems: 2 })
    expect(patched.json()).toEqual({
      code: 200,
      data: {
        batchMaxItems: 2,
        retentionDays: 0,
        predictionSharing: 'all',
        consoleSessionHours: 8,
        auditRetentionDays: 365,
        recipientRetentionDays: 30,
        carrierAutoCorrect: 'off',
        carrierAutoCorrectHours: 48,
      },
      msg: 'success',
    })

    const refused = await batch(other, 3)
    expect(refused.statusCode).toBe(400)
    expect(refused.json().data).toEqual({ error: 'validation_error', details: [{ field: 'items', message: 'must hold 1 to 2 items, got 3' }] })
    expect((await batch(other, 2)).statusCode).toBe(200)

    await admin('PATCH', '/admin/settings', { batchMaxItems: 1000 })
    expect((await batch(t, 150)).statusCode).toBe(200)
    await admin('PATCH', '/admin/settings', { batchMaxItems: 100 })
  })

  it.each([
    ['an unknown setting', { batchMaxItem: 50 }, [{ field: 'batchMaxItem', message: 'is not a known field' }]],
    ['no setting at all', {}, [{ field: '', message: 'must hold at least one field' }]],
  ])('refuses %s with validation_error, changing nothing', async (_name, body, details) => {
    const res = await admin('PATCH', '/admin/settings', body)
    expect(res.statusCode).toBe(400)
    expect(res.json().data).toEqual({ error: 'validation_error', details })
    expect((await admin('GET', '/admin/settings')).json().data.batchMaxItems).toBe(100)
  })

  it.each([['some'], [''], ['ALL'], [1], [null]])('rejects predictionSharing %j', async (value) => {
    const res = await admin('PATCH', '/admin/settings', { predictionSharing: value })
    expect(res.statusCode).toBe(400)
    expect(res.json().data).toEqual({
      error: 'validation_error',
      details: expect.arrayContaining([{ field: 'predictionSharing', message: 'must be one of all, own' }]),
    })
    expect((await admin('GET', '/admin/settings')).json().data.predictionSharing).toBe('all')
  })

  it('changes predictionSharing, and back', async () => {
    expect((await admin('PATCH', '/admin/settings', { predictionSharing: 'own' })).json().data.predictionSharing).toBe('own')
    expect((await admin('PATCH', '/admin/settings', { predictionSharing: 'all' })).json().data.predictionSharing).toBe('all')
  })

  it.each([[0], [1001], [2.5], ['50'], [null]])('rejects batchMaxItems %j', async (value) => {
    const res = await admin('PATCH', '/admin/settings', { batchMaxItems: value })
    expect(res.statusCode).toBe(400)
    expect(res.json().data).toEqual({ error: 'validation_error', details: [{ field: 'batchMaxItems', message: 'must be an integer from 1 to 1000' }] })
    expect((await admin('GET', '/admin/settings')).json().data.batchMaxItems).toBe(100)
  })
})

describe('without ADMIN_TOKEN', () => {
  it('answers 404 everywhere under /admin, even with a token', async () => {
    const closed = await createTestApp({ database: t.database, adminToken: undefined })
    try {
      for (const [method, url] of [
        ['GET', '/admin/settings'],
        ['PATCH', '/admin/settings'],
        ['POST', '/admin/api-users'],
        ['POST', '/admin/api-users/1/tokens'],
        ['DELETE', '/admin/api-users/1/tokens/1'],
        ['POST', '/admin/api-users/1/webhook-secret/rotate'],
      ] as const) {
        const res = await closed.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          payload: method === 'GET' || method === 'DELETE' ? undefined : {},
        })
        expect(res.statusCode).toBe(404)
        expect(res.json()).toEqual({ code: 404, data: { error: 'not_found' }, msg: 'no such route' })
      }
    } finally {
      await closed.close()
    }
  })
})

describe('operators and the audit log', () => {
  it('creates, lists and changes operators; a short password or an unknown role is a 400; the audit log records each change', async () => {
    const created = await admin('POST', '/admin/operators', { email: 'desk@example.com', role: 'support', password: 'twelve chars!' })
    expect(created.statusCode).toBe(200)
    const operator = created.json().data
    expect(operator).toMatchObject({ email: 'desk@example.com', role: 'support', disabledAt: null, sessions: 0 })
    expect(JSON.stringify(created.json())).not.toContain('twelve chars!')
    expect((await admin('POST', '/admin/operators', { email: 'DESK@example.com', role: 'viewer', password: 'twelve chars!' })).json().data.details).toEqual([
      { field: 'email', message: 'is already an operator' },
    ])
    expect((await admin('POST', '/admin/operators', { email: 'x@example.com', role: 'viewer', password: 'short' })).statusCode).toBe(400)
    expect((await admin('POST', '/admin/operators', { email: 'x@example.com', role: 'root', password: 'long enough password' })).statusCode).toBe(400)
    const changed = await admin('PATCH', `/admin/operators/${operator.operatorId}`, { role: 'viewer', disabled: true })
    expect(changed.json().data).toMatchObject({ role: 'viewer', disabledAt: expect.any(String) })
    expect((await admin('PATCH', '/admin/operators/424242', { role: 'admin' })).statusCode).toBe(404)
    expect((await admin('GET', '/admin/operators')).json().data.operators.map((o: { email: string }) => o.email)).toContain('desk@example.com')

    const log = (await admin('GET', `/admin/audit-log?targetKind=operator&targetId=${operator.operatorId}`)).json().data
    expect(log.entries.map((e: { action: string; outcome: string; actor: string }) => [e.action, e.outcome, e.actor])).toEqual([
      ['operator.update', 'ok', 'admin token'],
      ['operator.create', 'ok', 'admin token'],
    ])
    const refusals = (await admin('GET', '/admin/audit-log?actorKind=admin_token&action=operator.create')).json().data.entries
    expect(refusals.map((e: { outcome: string; detail: { reason?: string } }) => [e.outcome, e.detail.reason ?? null])).toEqual([
      ['refused', 'email is already an operator'],
      ['ok', null],
    ])
    expect(log.nextCursor).toBeNull()
    expect((await admin('GET', '/admin/audit-log?cursor=abc')).statusCode).toBe(400)
    expect((await admin('GET', '/admin/audit-log?limit=201')).statusCode).toBe(400)
  })
})
