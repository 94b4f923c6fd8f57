import { Registry } from 'prom-client'
import { request } from 'undici'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { FedexStory } from '../../test/support/fedex-story'
import { waitFor } from '../../test/support/wait-for'
import { freePort } from '../../test/support/service-process'
import { createSmsDelivery } from '../main/workers'
import { OutboxRepository } from '../db/outbox.repository'
import { SecretsRepository } from '../db/secrets.repository'
import { builtInTwilio } from '../main/built-in-twilio'
import { ServiceMetrics } from '../observability/metrics'
import { FakeTwilio, UNSUBSCRIBED } from '../simulator/fake-twilio'
import { twilioSignature } from './twilio-signature'

// A parcel walks FedEx's failed-attempt story (label → picked up → in transit → out for delivery →
// failed attempt → out for delivery → delivered) with a recipient's phone, through the fake Twilio
// on loopback, whose signed status callbacks and replies reach the service over real HTTP.

/** 12:00 UTC: 13:00 in Berlin (winter), day. */
const NOON = new Date('2026-11-30T12:00:00Z')
let t: TestApp
let base: string
const story = new FedexStory()
let twilio: FakeTwilio
let shop: Awaited<ReturnType<TestApp['createUser']>>

beforeAll(async () => {
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  // The fake's token is the built-in one the service verifies callbacks with (no TWILIO_* set).
  t = await createTestApp({ publicBaseUrl: base })
  twilio = new FakeTwilio({ ...(await builtInTwilio(new SecretsRepository(t.db))), inboundUrl: `${base}/sms/twilio/inbound` })
  await twilio.start()
  await t.app.listen({ port, host: '127.0.0.1' })
  shop = await t.createUser('shop')
  await story.start()
  const brand = {
    displayName: 'Nordwind Shop',
    logoUrl: null,
    accentColor: '#0f766e',
    supportUrl: null,
    supportEmail: null,
    showReference: false,
    defaultLanguage: 'en',
  }
  expect((await t.as(shop.token, { method: 'PUT', url: '/openapi/tracking-page', payload: brand })).statusCode).toBe(200)
  const settings = {
    email: { enabled: false, triggers: [], fromName: null, replyTo: null },
    sms: { enabled: true, triggers: ['in_transit', 'out_for_delivery', 'available_for_pickup', 'failed_attempt', 'delivered', 'exception'] },
  }
  const saved = await t.as(shop.token, { method: 'PUT', url: '/openapi/notifications', payload: settings })
  expect(saved.statusCode, saved.body).toBe(200)
})
afterAll(async () => {
  await story.stop()
  await twilio.stop()
  await t.close()
})
beforeEach(() => {
  twilio.respond = undefined
})

/** The SMS loop, at `clock`'s time, to `apiUrl` (the fake's by default). */
const smsLoop = (clock: () => Date = () => NOON, apiUrl = twilio.url, timeoutMs = 2000) =>
  createSmsDelivery(
    t.db,
    new OutboxRepository(t.db),
    {
      sms: { accountSid: twilio.accountSid, authToken: twilio.authToken, from: '+15005550006', apiUrl, timeoutMs, concurrency: 2 },
      webhook: { scheduleMs: [50, 50], timeoutMs: 2000, allowPrivateTargets: true, concurrency: 4, hostConcurrency: 4, hostConcurrencyMax: 4, pollMs: 1000 },
      publicBaseUrl: base,
    },
    new ServiceMetrics(new Registry()),
    { warn: () => {} },
    {},
    clock,
  )
type Sms = ReturnType<typeof smsLoop>

interface MessageRow {
  trigger: string
  status: string
  attempt_count: number
  error_message: string | null
  webhook_id: string
  provider_id: string | null
  provider_status: string | null
  next_attempt_at: Date
}
const messagesOf = (taskId: number) =>
  t.db.query<MessageRow>(
    `SELECT trigger, status, attempt_count, error_message, webhook_id, provider_id, provider_status, next_attempt_at
       FROM deliveries WHERE task_id = $1 AND channel = 'sms' ORDER BY id`,
    [taskId],
  )
const settled = (rows: MessageRow[]) => rows.every((r) => r.status === 'success' || r.status === 'failed')

/** Runs the loop until the task's texts hold `done`. */
async function send(sender: Sms, taskId: number, done: (rows: MessageRow[]) => boolean = settled): Promise<MessageRow[]> {
  let rows: MessageRow[] = []
  await waitFor(
    async () => {
      await sender.runRound()
      await sender.drain()
      rows = await messagesOf(taskId)
      return done(rows)
    },
    { what: 'the texts to be sent' },
  )
  return rows
}

const subscribe = (number: string, recipient: object) => story.subscribe(t, shop.token, number, recipient)

/** Fetches the task `stages` times, each seeing one stage more of its story; after each, `between`. */
async function walk(taskId: number, stages: number, between: () => Promise<void> = async () => {}): Promise<void> {
  const service = story.refresh(t.db)
  for (let stage = 0; stage < stages; stage++) {
    await t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = $1', [taskId])
    expect((await service.runRound()).claimed).toBeGreaterThanOrEqual(1)
    await between()
    story.next()
  }
}

const textsTo = (phone: string) => twilio.messages.filter((m) => m.to === phone).reverse()

/** Posts Twilio's form to the service, signed as Twilio signs (or with `signature`). */
async function postSigned(path: string, params: Record<string, string>, signature?: string): Promise<{ status: number; body: string }> {
  const url = `${base}${path}`
  const form = new URLSearchParams(params)
  const answer = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature ?? twilioSignature(twilio.authToken, url, form.entries()) },
    body: form.toString(),
  })
  return { status: answer.statusCode, body: await answer.body.text() }
}

describe("the customer's SMS", () => {
  it('texts the recipient at each milestone, once each, in their language with the page link, and keeps what Twilio reports', async () => {
    const phone = '+4917011110001'
    const taskId = await subscribe(`FA${Date.now()}`, { phone, name: 'Ana', language: 'de' })
    const sender = smsLoop()
    await walk(taskId, 7, async () => void (await send(sender, taskId)))
    await sender.close()

    const rows = await waitFor(
      async () => {
        const rows = await messagesOf(taskId)
        return rows.every((r) => r.provider_status === 'delivered') ? rows : undefined
      },
      { what: "Twilio's status callbacks" },
    )
    expect(rows.map((r) => [r.trigger, r.status, r.attempt_count])).toEqual([
      ['in_transit', 'success', 1],
      ['out_for_delivery', 'success', 1],
      ['failed_attempt', 'success', 1],
      ['delivered', 'success', 1],
    ])
    const texts = textsTo(phone)
    expect(texts.map((m) => m.sid)).toEqual(rows.map((r) => r.provider_id))
    expect(texts[0]!.body).toMatch(new RegExp(`^Nordwind Shop: Ihr Paket ist unterwegs\\. .*Verfolgen: ${base}/t/[A-Za-z0-9_-]+ Abmelden: STOP antworten\\.$`))
    expect(texts[3]!.body).toMatch(/^Nordwind Shop: Ihr Paket wurde zugestellt\. Verfolgen: /)
    for (const text of texts) {
      expect(text.from).toBe('+15005550006')
      expect(text.statusCallback).toBe(`${base}/sms/twilio/status/${rows[texts.indexOf(text)]!.webhook_id}`)
    }
    const full = (await t.as(shop.token, { method: 'GET', url: `/openapi/tracking-subscriptions/${taskId}` })).json().data
    expect(full.notifications.map((n: { channel: string; trigger: string; status: string }) => [n.channel, n.trigger, n.status])).toEqual(
      rows.map((r) => ['sms', r.trigger, 'success']),
    )
    // Never in a webhook's body, nor in what the outbox keeps of an attempt.
    const [leaked] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery_id = d.id
        WHERE d.payload::text LIKE $1 OR a.response_body_excerpt LIKE $1 OR a.error_message LIKE $1 OR d.error_message LIKE $1`,
      [`%${phone.slice(1)}%`],
    )
    expect(leaked!.n).toBe(0)
  })

  it('holds a text through the quiet hours at the destination, and drops it when the parcel moved on meanwhile', async () => {
    const phone = '+4917011110002'
    const taskId = await subscribe(`FA${Date.now()}`, { phone })
    // 22:30 in Berlin.
    let now = new Date('2026-11-30T21:30:00Z')
    const sender = smsLoop(() => now)
    await walk(taskId, 2)
    let rows = await send(sender, taskId, (rows) => rows.length === 1 && rows[0]!.next_attempt_at.getTime() > Date.now() + 60_000)
    // Not an attempt: due at 08:00 in Berlin, nothing sent.
    expect(rows.map((r) => [r.trigger, r.status, r.attempt_count, r.next_attempt_at.toISOString()])).toEqual([
      ['in_transit', 'pending', 0, '2026-12-01T07:00:00.000Z'],
    ])
    expect(textsTo(phone)).toHaveLength(0)

    // By morning the parcel is out for delivery (stage 3): the night's in_transit text is stale.
    story.next()
    await walk(taskId, 1)
    now = new Date('2026-12-01T07:00:00Z')
    await t.db.query(`UPDATE deliveries SET next_attempt_at = now() WHERE task_id = $1 AND channel = 'sms'`, [taskId])
    rows = await send(sender, taskId)
    expect(rows.map((r) => [r.trigger, r.status, r.attempt_count])).toEqual([
      ['in_transit', 'failed', 1],
      ['out_for_delivery', 'success', 1],
    ])
    expect(rows[0]!.error_message).toContain('moved on to out_for_delivery')
    expect(textsTo(phone).map((m) => m.body)).toEqual([expect.stringContaining('Your parcel is out for delivery')])
    await sender.close()
  })

  it('never sends a text twice when Twilio may have taken it, and tries again what it surely did not', async () => {
    const cases: { phone: string; setup: () => Sms; status: string; attempts: number; error: RegExp; requests: number }[] = [
      {
        // No answer within the timeout: the request went, the outcome is unknown.
        phone: '+4917011110003',
        setup: () => ((twilio.respond = () => 'hang'), smsLoop(undefined, undefined, 300)),
        status: 'failed',
        attempts: 1,
        error: /^outcome unknown \(no answer in time\): an SMS is not sent again/,
        requests: 1,
      },
      {
        phone: '+4917011110004',
        setup: () => ((twilio.respond = () => ({ status: 500, body: { code: 20500, message: 'Internal Server Error', status: 500 } })), smsLoop()),
        status: 'failed',
        attempts: 1,
        error: /^outcome unknown \(Twilio answered 500\)/,
        requests: 1,
      },
      {
        // Rate-limited: Twilio said it took nothing; tried on the schedule.
        phone: '+4917011110005',
        setup: () => ((twilio.respond = () => ({ status: 429, body: { code: 20429, message: 'Too Many Requests', status: 429 } })), smsLoop()),
        status: 'failed',
        attempts: 3,
        error: /^Twilio is rate-limiting: Twilio error 20429/,
        requests: 3,
      },
    ]
    for (const c of cases) {
      const taskId = await subscribe(`FA${Date.now()}`, { phone: c.phone })
      await walk(taskId, 2)
      const before = twilio.requests
      const sender = c.setup()
      const rows = await send(sender, taskId)
      await sender.close()
      expect(
        rows.map((r) => [r.status, r.attempt_count]),
        c.phone,
      ).toEqual([[c.status, c.attempts]])
      expect(rows[0]!.error_message).toMatch(c.error)
      expect(twilio.requests - before, c.phone).toBe(c.requests)
      twilio.respond = undefined
    }

    // Twilio cannot be reached (nothing listens): nothing went, so it is tried again.
    const closed = await freePort()
    const taskId = await subscribe(`FA${Date.now()}`, { phone: '+4917011110006' })
    await walk(taskId, 2)
    const unreachable = smsLoop(undefined, `http://127.0.0.1:${closed}`)
    const rows = await send(unreachable, taskId)
    await unreachable.close()
    expect(rows.map((r) => [r.status, r.attempt_count])).toEqual([['failed', 3]])
    expect(rows[0]!.error_message).toMatch(/^Twilio could not be reached: ECONNREFUSED/)
  })

  it('ends, without sending again, a text whose worker died while it was being sent', async () => {
    const taskId = await subscribe(`FA${Date.now()}`, { phone: '+4917011110007' })
    await walk(taskId, 2)
    // A worker claimed it and died: its lease runs out.
    const [claimed] = await new OutboxRepository(t.db).claim('sms', 1, 60_000, 1)
    expect(claimed?.taskId).toBe(taskId)
    await t.db.query(`UPDATE deliveries SET lease_until = now() - interval '1 second' WHERE id = $1`, [claimed!.id])
    const before = twilio.requests
    const sender = smsLoop()
    const rows = await send(sender, taskId)
    await sender.close()
    expect(rows.map((r) => [r.status, r.attempt_count])).toEqual([['failed', 1]])
    expect(rows[0]!.error_message).toBe('attempt interrupted: the worker lost its lease')
    expect(twilio.requests).toBe(before)
  })

  it('suppresses a number that replies STOP for every shop that knows it, and lifts it on START', async () => {
    const phone = '+4917011110008'
    const other = await t.createUser('other shop')
    await t.as(other.token, {
      method: 'PUT',
      url: '/openapi/notifications',
      payload: { email: { enabled: false, triggers: [], fromName: null, replyTo: null }, sms: { enabled: true, triggers: ['in_transit'] } },
    })
    const taskId = await subscribe(`FA${Date.now()}`, { phone })
    const theirs = await t.as(other.token, {
      method: 'POST',
      url: '/openapi/tracking-subscriptions',
      payload: { carrierCode: 'FEDEX', trackingNumber: `FA${Date.now()}9`, callbackUrl: 'https://other.example/hook', recipient: { phone } },
    })
    expect(theirs.statusCode).toBe(200)

    // Unsigned, or signed with another token: refused, nothing changes.
    const reply = { From: phone, To: '+15005550006', Body: 'STOP', AccountSid: twilio.accountSid, MessageSid: `SM${'0'.repeat(32)}` }
    expect((await postSigned('/sms/twilio/inbound', reply, '')).status).toBe(401)
    expect((await postSigned('/sms/twilio/inbound', reply, twilioSignature('another-token', `${base}/sms/twilio/inbound`, Object.entries(reply)))).status).toBe(
      401,
    )
    // A body changed after it was signed.
    const signed = twilioSignature(twilio.authToken, `${base}/sms/twilio/inbound`, Object.entries({ ...reply, Body: 'hello' }))
    expect((await postSigned('/sms/twilio/inbound', reply, signed)).status).toBe(401)
    const suppressed = async () =>
      (
        await t.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM recipient_addresses WHERE channel = 'sms' AND suppressed_at IS NOT NULL AND user_id = ANY($1)`,
          [[shop.userId, other.userId]],
        )
      )[0]!.n
    expect(await suppressed()).toBe(0)

    expect(await twilio.reply(phone, '+15005550006', 'Stop')).toBe(200)
    expect(await suppressed()).toBe(2)
    await walk(taskId, 2)
    const sender = smsLoop()
    const rows = await send(sender, taskId)
    expect(rows.map((r) => [r.trigger, r.status, r.error_message])).toEqual([
      ['in_transit', 'failed', 'the number replied STOP or was refused by the provider'],
    ])
    expect(textsTo(phone)).toHaveLength(0)

    const answer = await postSigned('/sms/twilio/inbound', { ...reply, Body: 'START' })
    expect(answer).toEqual({ status: 200, body: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>' })
    expect(await suppressed()).toBe(0)
    await sender.close()
  })

  it('suppresses a number Twilio says opted out (21610), and fails a text Twilio reports undelivered', async () => {
    const taskId = await subscribe(`FA${Date.now()}`, { phone: UNSUBSCRIBED })
    await walk(taskId, 2)
    // Twilio's test numbers (+1 500) may be anywhere from Guam to Samoa: day in all of them
    // between 22:00 and 01:30 UTC.
    const anywhere = smsLoop(() => new Date('2026-11-30T23:00:00Z'))
    const rows = await send(anywhere, taskId)
    await anywhere.close()
    expect(rows.map((r) => [r.status, r.attempt_count])).toEqual([['failed', 1]])
    expect(rows[0]!.error_message).toBe('Twilio error 21610: Attempt to send to unsubscribed recipient')
    const [address] = await t.db.query<{ reason: string }>(
      `SELECT suppressed_reason AS reason FROM recipient_addresses a JOIN task_recipients r ON r.phone_hash = a.address_hash AND a.user_id = r.user_id
        WHERE r.task_id = $1 AND a.channel = 'sms'`,
      [taskId],
    )
    expect(address?.reason).toBe('replied STOP')

    // A number the fake cannot deliver to: sent, then reported undelivered.
    const lost = await subscribe(`FA${Date.now()}`, { phone: '+4917011110666' })
    await walk(lost, 2)
    const sender = smsLoop()
    await send(sender, lost)
    const [undelivered] = await waitFor(
      async () => {
        const rows = await messagesOf(lost)
        return rows[0]?.provider_status === 'undelivered' ? rows : undefined
      },
      { what: 'the undelivered callback' },
    )
    expect(undelivered).toMatchObject({ status: 'failed', error_message: 'the provider reported it undelivered (Twilio error 30006)' })
    await sender.close()

    // A late `sent` does not take it back; a callback for no text of ours is 404; a forged one 401.
    const path = `/sms/twilio/status/${undelivered!.webhook_id}`
    expect((await postSigned(path, { MessageSid: undelivered!.provider_id!, MessageStatus: 'sent' })).status).toBe(204)
    expect((await messagesOf(lost))[0]).toMatchObject({ status: 'failed', provider_status: 'undelivered' })
    expect((await postSigned('/sms/twilio/status/no-such-message', { MessageStatus: 'delivered' })).status).toBe(404)
    expect((await postSigned(path, { MessageStatus: 'delivered' }, 'forged')).status).toBe(401)
  })
})
