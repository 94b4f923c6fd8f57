import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../test/support/test-app'

// The console against hostile and malformed requests, over HTTP without a browser: every answer
// is a page with a 4xx (never a 5xx), nothing is written, nothing unescaped comes back.
let t: TestApp
let cookie: string
let csrf: string

beforeAll(async () => {
  t = await createTestApp()
  const signIn = await t.app.inject({
    method: 'POST',
    url: '/console/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `token=${ADMIN_TOKEN}`,
  })
  cookie = /console_session=[^;]+/.exec(String(signIn.headers['set-cookie']))![0]
  const page = await t.app.inject({ method: 'GET', url: '/console/users', headers: { cookie } })
  csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!
})
afterAll(() => t.close())

const signInWith = (fields: Record<string, string>, remoteAddress = '127.0.0.1') =>
  t.app.inject({
    method: 'POST',
    url: '/console/sign-in',
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  })
const form = (fields: Record<string, string>) => new URLSearchParams({ _csrf: csrf, ...fields }).toString()
const post = (url: string, payload: string, contentType = 'application/x-www-form-urlencoded') =>
  t.app.inject({ method: 'POST', url, headers: { cookie, 'content-type': contentType }, payload })

describe('the console under hostile input', () => {
  it.each([
    [
      'a sign-in as text/plain',
      () => t.app.inject({ method: 'POST', url: '/console/sign-in', headers: { 'content-type': 'text/plain' }, payload: 'token=x' }),
      415,
    ],
    [
      'a sign-in of JSON with a number for a token',
      () => t.app.inject({ method: 'POST', url: '/console/sign-in', headers: { 'content-type': 'application/json' }, payload: '{"token": 123}' }),
      401,
    ],
    ['a form over 16 KiB', () => post('/console/users', form({ name: 'x'.repeat(20_000) })), 413],
    ['a user name with control characters', () => post('/console/users', form({ name: 'a\u0000b' })), 400],
    ['an empty user name', () => post('/console/users', form({ name: '' })), 400],
    ['a task id of letters', () => t.app.inject({ method: 'GET', url: '/console/tasks/abc', headers: { cookie } }), 404],
    ['a task id past 2^53', () => t.app.inject({ method: 'GET', url: '/console/tasks/99999999999999999999', headers: { cookie } }), 404],
    ['a task that does not exist', () => t.app.inject({ method: 'GET', url: '/console/tasks/424242', headers: { cookie } }), 404],
    ['a user 0', () => t.app.inject({ method: 'GET', url: '/console/users/0', headers: { cookie } }), 404],
    ['a refresh of a missing task', () => post('/console/tasks/424242/refresh', form({})), 404],
    ['a redeliver of a webhook id of garbage', () => post('/console/tasks/424242/webhooks/%00%3Cx%3E/redeliver', form({})), 404],
    ['settings of text', () => post('/console/settings', form({ batchMaxItems: 'many', retentionDays: '1' })), 400],
    ['settings past their bounds', () => post('/console/settings', form({ batchMaxItems: '99999999999', retentionDays: '-1' })), 400],
    ['an operator with no email', () => post('/console/operators', form({ email: '', role: 'viewer', password: 'x'.repeat(12) })), 400],
    ['an operator of an unknown role', () => post('/console/operators', form({ email: 'a@example.com', role: 'root', password: 'x'.repeat(12) })), 400],
    [
      'an operator with a 10 KiB password',
      () => post('/console/operators', form({ email: 'a@example.com', role: 'viewer', password: 'x'.repeat(10_000) })),
      400,
    ],
    ['a role change of a missing operator', () => post('/console/operators/424242', form({ role: 'admin' })), 404],
    ['a sign-in with an email of 10 KiB', () => signInWith({ email: `${'a'.repeat(10_000)}@example.com`, password: 'x' }), 401],
    [
      'an audit log filtered by garbage',
      () => t.app.inject({ method: 'GET', url: '/console/audit?who=%00&action=%3Cx%3E&since=yesterday&before=-1', headers: { cookie } }),
      200,
    ],
    [
      'a replay with a window backwards',
      () => post('/console/deliveries/replay', form({ createdFrom: '2026-11-27T10:00', createdTo: '2026-11-27T09:00', userId: '', endpointId: '' })),
      400,
    ],
    ['a path outside the console', () => t.app.inject({ method: 'GET', url: '/console/../admin/settings', headers: { cookie } }), 401],
  ])('%s: a %i page', async (_name, request, status) => {
    const res = await request()
    expect(res.statusCode).toBe(status)
    expect(res.statusCode).toBeLessThan(500)
    if (res.headers['content-type']?.toString().startsWith('text/html')) expect(res.body).toContain('</html>')
  })

  it('escapes what it echoes, ignores unknown filters and clips long searches', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/console/tasks?q=${encodeURIComponent('<script>alert(1)</script>')}&status=%3Cb%3E&carrier=ACME&before=-1&x=1`,
      headers: { cookie },
    })
    expect(res.statusCode).toBe(200)
    expect(res.body).not.toContain('<script>alert(1)</script>')
    expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    const long = await t.app.inject({ method: 'GET', url: `/console/tasks?q=${'9'.repeat(10_000)}`, headers: { cookie } })
    expect(long.statusCode).toBe(200)
    expect((await t.services.users.list()).length).toBe(0)
  })

  it('sends its pages with the security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console', headers: { cookie } })
    expect(res.headers).toMatchObject({
      'content-security-policy': expect.stringContaining("default-src 'none'"),
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    })
  })

  it('does not exist without ADMIN_TOKEN', async () => {
    const bare = await createTestApp({ adminToken: undefined, database: t.database })
    try {
      expect((await bare.app.inject({ method: 'GET', url: '/console' })).statusCode).toBe(404)
      expect((await bare.app.inject({ method: 'GET', url: '/console/sign-in' })).statusCode).toBe(404)
    } finally {
      await bare.close()
    }
  })
})

describe('a form that makes a secret', () => {
  it('redirects, and the page it leads to shows the secret once, to this session only, kept sealed meanwhile', async () => {
    const created = await post('/console/users', form({ name: 'Shop PRG' }))
    expect(created.statusCode).toBe(303)
    expect(created.headers.location).toBe('/console/users')
    expect(created.body).toBe('')
    // Sealed: nothing the database holds reads as a token or a webhook secret.
    const [row] = await t.db.query<{ shown_once: Buffer }>('SELECT shown_once FROM console_sessions WHERE shown_once IS NOT NULL')
    expect(row!.shown_once.toString('latin1')).not.toMatch(/trk_|whsec_|Shop PRG/)
    // Another session (another operator's browser) sees none of it.
    const other = await t.app.inject({
      method: 'POST',
      url: '/console/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${ADMIN_TOKEN}`,
    })
    const otherCookie = /console_session=[^;]+/.exec(String(other.headers['set-cookie']))![0]
    expect((await t.app.inject({ method: 'GET', url: '/console/users', headers: { cookie: otherCookie } })).body).not.toMatch(/trk_/)
    // This session's first view shows the token and the secret; a reload shows neither.
    const first = await t.app.inject({ method: 'GET', url: '/console/users', headers: { cookie } })
    expect(first.body).toMatch(/id="secret-token"[^>]*>trk_/)
    expect(first.body).toMatch(/id="secret-webhook"[^>]*>whsec_/)
    expect(first.body).toContain('API user &quot;Shop PRG&quot; created')
    const again = await t.app.inject({ method: 'GET', url: '/console/users', headers: { cookie } })
    expect(again.body).not.toMatch(/trk_|whsec_/)
    expect((await t.services.users.list()).filter((u) => u.name === 'Shop PRG')).toHaveLength(1)
  })

  it('keeps the slot for its own page: another page viewed first leaves it', async () => {
    const users = await t.services.users.list()
    const userId = users[0]!.id
    const tokenForm = await post(`/console/users/${userId}/tokens`, form({}))
    expect(tokenForm.statusCode).toBe(303)
    expect(tokenForm.headers.location).toBe(`/console/users/${userId}`)
    expect((await t.app.inject({ method: 'GET', url: '/console/users', headers: { cookie } })).body).not.toContain('secret-token')
    const page = await t.app.inject({ method: 'GET', url: `/console/users/${userId}`, headers: { cookie } })
    const token = /id="secret-token"[^>]*>(trk_[^<]+)</.exec(page.body)?.[1]
    expect(token).toHaveLength(47)
    // Seen again, the page shows the token's prefix only (to tell it apart), never the token.
    const again = (await t.app.inject({ method: 'GET', url: `/console/users/${userId}`, headers: { cookie } })).body
    expect(again).not.toContain(token)
    expect(again).toContain(`<code>${token!.slice(0, 12)}…</code>`)
  })

  it('answers saved settings with a redirect to the settings page', async () => {
    const saved = await post('/console/settings', form({ batchMaxItems: '100', retentionDays: '90' }))
    expect(saved.statusCode).toBe(303)
    expect(saved.headers.location).toBe('/console/settings?notice=saved')
  })
})

describe('refresh now, twice', () => {
  it('answers the second within a minute with the task again and a notice, not an error page', async () => {
    const { userId } = await t.createUser('Shop refresh')
    const { taskId } = await t.services.subscriptions.subscribe(userId, {
      carrierCode: 'FEDEX',
      trackingNumber: '123456789012',
      callbackUrl: 'https://shop.example/hook',
    })
    const first = await post(`/console/tasks/${taskId}/refresh`, form({}))
    expect(first.headers.location).toBe(`/console/tasks/${taskId}?notice=refreshed`)
    const second = await post(`/console/tasks/${taskId}/refresh`, form({}))
    expect(second.statusCode).toBe(303)
    expect(second.headers.location).toBe(`/console/tasks/${taskId}?notice=refresh_too_soon`)
    const page = await t.app.inject({ method: 'GET', url: second.headers.location as string, headers: { cookie } })
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('Not refreshed: this task was refreshed less than a minute ago')
    expect(page.body).toContain('123456789012')
  })
})

describe('a carrier change from the task page', () => {
  it('moves the task, lists the change, and answers a refusal with the task and a notice', async () => {
    const { userId } = await t.createUser('Shop carrier change')
    const subscribe = async (carrierCode: string) =>
      (await t.services.subscriptions.subscribe(userId, { carrierCode, trackingNumber: 'CONSOLEMOVE1', callbackUrl: 'https://shop.example/hook' })).taskId
    const taskId = await subscribe('FEDEX')
    await subscribe('DHL')
    const before = await t.app.inject({ method: 'GET', url: `/console/tasks/${taskId}`, headers: { cookie } })
    expect(before.body).toContain('Never changed.')
    expect(before.body).toContain('<option>AUTO</option>')
    expect(before.body).toContain('<option>USPS</option>')
    expect(before.body).not.toContain('<option>FEDEX</option>')

    const moved = await post(`/console/tasks/${taskId}/carrier`, form({ carrierCode: 'USPS' }))
    expect(moved.statusCode).toBe(303)
    expect(moved.headers.location).toBe(`/console/tasks/${taskId}?notice=carrier_changed`)
    const after = await t.app.inject({ method: 'GET', url: moved.headers.location as string, headers: { cookie } })
    expect(after.body).toContain('FEDEX → <strong>USPS</strong>')
    expect(after.body).toContain('4 changes left')

    const refused = await post(`/console/tasks/${taskId}/carrier`, form({ carrierCode: 'DHL' }))
    expect(refused.headers.location).toBe(`/console/tasks/${taskId}?notice=carrier_conflict`)
    const page = await t.app.inject({ method: 'GET', url: refused.headers.location as string, headers: { cookie } })
    expect(page.body).toContain('Not moved: this API user already tracks the number with that carrier')
    expect((await t.services.tasks.get(userId, taskId)).includes('"carrierCode":"USPS"')).toBe(true)
  })
})

describe('the tracking page’s branding in the console', () => {
  it('is saved from the user’s page, and a wrong field keeps what was typed and says what is wrong', async () => {
    const { userId } = await t.createUser('Shop branding')
    const fields = {
      displayName: 'Nordlicht Kaffee',
      logoUrl: 'https://cdn.nordlicht.example/logo.svg',
      accentColor: '#7a3e00',
      supportUrl: '',
      supportEmail: 'hilfe@nordlicht.example',
      defaultLanguage: 'de',
      showReference: 'true',
    }
    const saved = await post(`/console/users/${userId}/tracking-page`, form(fields))
    expect(saved.statusCode).toBe(303)
    expect(saved.headers.location).toBe(`/console/users/${userId}?notice=page_saved#tracking-page`)
    expect(await t.services.pages.brand(userId)).toEqual({ ...fields, supportUrl: null, showReference: true })

    const wrong = await post(
      `/console/users/${userId}/tracking-page`,
      form({ ...fields, logoUrl: 'http://insecure.example/logo.png', displayName: 'Typed again' }),
    )
    expect(wrong.statusCode).toBe(400)
    expect(wrong.body).toContain('Tracking page not saved: logoUrl must be an absolute https URL')
    expect(wrong.body).toContain('value="Typed again"')
    expect((await t.services.pages.brand(userId)).displayName).toBe('Nordlicht Kaffee')
  })
})

describe('the customer notifications in the console', () => {
  it("are saved from the user's page, audited, and a wrong field keeps what was typed and says what is wrong", async () => {
    const { userId } = await t.createUser('Shop notifications')
    const fields = {
      'email.enabled': 'true',
      'email.trigger.out_for_delivery': 'true',
      'email.trigger.delivered': 'true',
      'email.fromName': 'Nordlicht Kaffee',
      'email.replyTo': '',
      'sms.enabled': 'true',
      'sms.trigger.out_for_delivery': 'true',
    }
    const saved = await post(`/console/users/${userId}/notifications`, form(fields))
    expect(saved.statusCode).toBe(303)
    expect(saved.headers.location).toBe(`/console/users/${userId}?notice=notifications_saved#notifications`)
    expect(await t.services.notifications.settings(userId)).toEqual({
      email: { enabled: true, triggers: ['out_for_delivery', 'delivered'], fromName: 'Nordlicht Kaffee', replyTo: null },
      sms: { enabled: true, triggers: ['out_for_delivery'] },
    })
    const [entry] = await t.db.query<{ action: string; outcome: string }>(
      `SELECT action, outcome FROM audit_log WHERE target_id = $1 ORDER BY id DESC LIMIT 1`,
      [String(userId)],
    )
    expect(entry).toEqual({ action: 'notifications.save', outcome: 'ok' })
    const page = await t.app.inject({ method: 'GET', url: `/console/users/${userId}`, headers: { cookie } })
    expect(page.body).toContain('id="n-sms-out_for_delivery" name="sms.trigger.out_for_delivery" type="checkbox" value="true" checked')
    expect(page.body).toContain('0 email, 0 SMS')

    const wrong = await post(`/console/users/${userId}/notifications`, form({ ...fields, 'email.replyTo': 'not an address', 'email.fromName': 'Typed again' }))
    expect(wrong.statusCode).toBe(400)
    expect(wrong.body).toContain('Notifications not saved: email.replyTo must be an email address')
    expect(wrong.body).toContain('value="Typed again"')
    expect((await t.services.notifications.settings(userId)).email.fromName).toBe('Nordlicht Kaffee')
  })

  it('previews every message in every language, the email framed with its own policy', async () => {
    const { userId } = await t.createUser('Shop previews')
    await post(`/console/users/${userId}/notifications`, form({ 'email.fromName': 'Café Ñandú', 'email.replyTo': 'help@cafe.example' }))
    const page = await t.app.inject({
      method: 'GET',
      url: `/console/users/${userId}/notifications/preview?trigger=failed_attempt&language=fr`,
      headers: { cookie },
    })
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('&quot;Café Ñandú&quot; &lt;NOTIFY_FROM&gt;')
    expect(page.body).toContain('help@cafe.example')
    expect(page.body).toContain('Le transporteur n’a pas pu livrer votre colis')
    expect(page.body).toMatch(/Café Ñandú: Le transporteur n(&#39;|&#x27;)a pas pu livrer votre colis\./)
    expect(page.body).toContain(`src="/console/users/${userId}/notifications/preview.html?trigger=failed_attempt&amp;language=fr"`)
    // Every trigger and language is a link away.
    expect(page.body.match(/notifications\/preview\?trigger=/g)).toHaveLength(6 * 4 - 1)
    const framed = await t.app.inject({
      method: 'GET',
      url: `/console/users/${userId}/notifications/preview.html?trigger=delivered&language=es`,
      headers: { cookie },
    })
    expect(framed.statusCode).toBe(200)
    expect(framed.body).toContain('<html lang="es">')
    expect(framed.headers['x-frame-options']).toBe('SAMEORIGIN')
    expect(framed.headers['content-security-policy']).toContain("frame-ancestors 'self'")
    expect(framed.headers['content-security-policy']).not.toContain('script-src')
    // Unknown trigger or language: the first of each; not signed in: the sign-in page.
    const fallback = await t.app.inject({
      method: 'GET',
      url: `/console/users/${userId}/notifications/preview?trigger=%3Cx%3E&language=xx`,
      headers: { cookie },
    })
    expect(fallback.body).toContain('Your parcel is on its way')
    expect((await t.app.inject({ method: 'GET', url: `/console/users/${userId}/notifications/preview.html` })).statusCode).not.toBe(200)
  })
})

describe("an operator's sign-in", () => {
  it('is throttled per operator whatever the address: after 5 failures even the right password waits, saying for how long', async () => {
    await t.services.operators.create({ email: 'guessed@example.com', role: 'viewer', password: 'the right password' })
    const statuses: number[] = []
    // Each guess from another address: the per-address limit never trips, the operator's does.
    for (let i = 0; i < 6; i++)
      statuses.push((await signInWith({ email: 'guessed@example.com', password: `guess ${i} of many` }, `198.51.100.${i + 1}`)).statusCode)
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
    const locked = await signInWith({ email: 'guessed@example.com', password: 'the right password' }, '198.51.100.99')
    expect(locked.statusCode).toBe(429)
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800)
    expect(locked.body).toContain('too many failed sign-ins for this operator')
    // The window passed: the right password signs in, and the count starts again.
    await t.db.query("UPDATE operators SET failures_reset_at = now() - interval '1 second' WHERE email = 'guessed@example.com'")
    expect((await signInWith({ email: 'guessed@example.com', password: 'the right password' }, '198.51.100.99')).statusCode).toBe(303)
    const [row] = await t.db.query<{ failed_sign_ins: number }>("SELECT failed_sign_ins FROM operators WHERE email = 'guessed@example.com'")
    expect(row!.failed_sign_ins).toBe(0)
  })
})
