import { Registry } from 'prom-client'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { FedexStory } from '../../test/support/fedex-story'
import { SmtpSink } from '../../test/support/smtp-sink'
import { waitFor } from '../../test/support/wait-for'
import { createEmailDelivery } from '../main/workers'
import { OutboxRepository } from '../db/outbox.repository'
import { TRIGGER_HEADLINES } from '../domain/customer-labels'
import { ServiceMetrics } from '../observability/metrics'

// A parcel walks FedEx's failed-attempt story (label → picked up → in transit → out for delivery →
// failed attempt → out for delivery → delivered) with a recipient, through a real SMTP server on
// loopback: which messages go, once each, with which headers, in which language.

const FROM = 'notify@tracking.example'
const BASE = 'https://track.example'
let t: TestApp
const story = new FedexStory()
const smtp = new SmtpSink()
let shop: Awaited<ReturnType<TestApp['createUser']>>

beforeAll(async () => {
  t = await createTestApp()
  shop = await t.createUser('shop')
  await story.start()
  await smtp.start()
  const brand = {
    displayName: 'Nordwind Shop',
    logoUrl: null,
    accentColor: '#0f766e',
    supportUrl: 'https://nordwind.example/help',
    supportEmail: 'help@nordwind.example',
    showReference: false,
    defaultLanguage: 'en',
  }
  expect((await t.as(shop.token, { method: 'PUT', url: '/openapi/tracking-page', payload: brand })).statusCode).toBe(200)
  const settings = {
    email: {
      enabled: true,
      triggers: ['in_transit', 'out_for_delivery', 'available_for_pickup', 'failed_attempt', 'delivered', 'exception'],
      fromName: null,
      replyTo: null,
    },
    sms: { enabled: false, triggers: [] },
  }
  const saved = await t.as(shop.token, { method: 'PUT', url: '/openapi/notifications', payload: settings })
  expect(saved.statusCode, saved.body).toBe(200)
})
afterAll(async () => {
  await story.stop()
  await smtp.stop()
  await t.close()
})
beforeEach(() => {
  smtp.received.length = 0
  smtp.rcpt = () => ({ accept: true })
})

const email = (smtpUrl = smtp.url) =>
  createEmailDelivery(
    t.db,
    new OutboxRepository(t.db),
    {
      email: { smtpUrl, from: FROM, timeoutMs: 2000, concurrency: 4 },
      webhook: { scheduleMs: [50, 50], timeoutMs: 2000, allowPrivateTargets: true, concurrency: 4, hostConcurrency: 4, hostConcurrencyMax: 4, pollMs: 1000 },
      publicBaseUrl: BASE,
    },
    new ServiceMetrics(new Registry()),
    { warn: () => {} },
  )

type Email = ReturnType<typeof email>

const messagesOf = async (taskId: number) =>
  t.db.query<{ trigger: string; status: string; attempt_count: number; error_message: string | null; webhook_id: string }>(
    `SELECT trigger, status, attempt_count, error_message, webhook_id FROM deliveries WHERE task_id = $1 AND channel = 'email' ORDER BY id`,
    [taskId],
  )

/** Sends the email deliveries due until none of the task's waits (or the check holds). */
async function sendAll(
  sender: Email,
  taskId: number,
  done = (rows: { status: string }[]) => rows.every((r) => r.status === 'success' || r.status === 'failed'),
): Promise<void> {
  await waitFor(
    async () => {
      await sender.runRound()
      await sender.drain()
      return done(await messagesOf(taskId))
    },
    { what: 'the messages to be sent' },
  )
}

const subscribe = (number: string, recipient: object) => story.subscribe(t, shop.token, number, recipient)

/** Fetches the task `stages` times, each seeing one stage more of its story, sending the messages after each. */
async function walk(taskId: number, stages: number, sender: Email): Promise<void> {
  const service = story.refresh(t.db)
  for (let stage = 0; stage < stages; stage++) {
    await t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = $1', [taskId])
    expect((await service.runRound()).claimed).toBe(1)
    await sendAll(sender, taskId)
    story.next()
  }
}

describe("the customer's email", () => {
  it('tells the recipient at each milestone of the shop, once each, in their language, with the headers of a good sender', async () => {
    const taskId = await subscribe(`FA${Date.now()}`, { email: 'Ana.Muster@Example.COM', name: 'Ana Muster', language: 'de-AT' })
    const sender = email()
    await walk(taskId, 7, sender)
    await sender.close()

    // out_for_delivery came twice: one message. The label (info_received) is no trigger.
    const rows = await messagesOf(taskId)
    expect(rows.map((r) => [r.trigger, r.status])).toEqual([
      ['in_transit', 'success'],
      ['out_for_delivery', 'success'],
      ['failed_attempt', 'success'],
      ['delivered', 'success'],
    ])
    expect(smtp.received).toHaveLength(4)
    const triggers = ['in_transit', 'out_for_delivery', 'failed_attempt', 'delivered'] as const
    smtp.received.forEach((mail, i) => {
      const { parsed } = mail
      // The domain part of the address is lower-cased; the local part kept.
      expect(mail.to).toEqual(['Ana.Muster@example.com'])
      expect(parsed.from?.value).toEqual([{ name: 'Nordwind Shop', address: FROM }])
      expect(parsed.to && 'value' in parsed.to ? parsed.to.value : []).toEqual([{ name: 'Ana Muster', address: 'Ana.Muster@example.com' }])
      expect(parsed.replyTo?.value).toEqual([{ name: '', address: 'help@nordwind.example' }])
      expect(parsed.messageId).toBe(`<${rows[i]!.webhook_id}@tracking.example>`)
      expect(mail.raw).toMatch(/^List-Unsubscribe: <https:\/\/track\.example\/u\/[A-Za-z0-9_-]{22}>\r$/m)
      expect(mail.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m)
      // German: the recipient's language (de-AT reads as de).
      expect(parsed.subject).toContain(TRIGGER_HEADLINES.de[triggers[i]!])
      expect(parsed.text).toContain('Hallo Ana Muster,')
      expect(parsed.text).toContain(`${BASE}/t/`)
      expect(parsed.html).toContain('<html lang="de">')
      expect(parsed.html).toContain('Paket verfolgen')
    })

    // The full task shows the recipient and the messages; the interface's query answer does not.
    const full = (await t.as(shop.token, { method: 'GET', url: `/openapi/tracking-subscriptions/${taskId}` })).json().data
    expect(full.recipient).toEqual({ email: 'Ana.Muster@example.com', phone: null, name: 'Ana Muster', language: 'de' })
    expect(full.notifications.map((n: { trigger: string; status: string; channel: string }) => [n.channel, n.trigger, n.status])).toEqual(
      triggers.map((trigger) => ['email', trigger, 'success']),
    )
    const query = (await t.as(shop.token, { method: 'GET', url: `/openapi/tracking-subscriptions?taskId=${taskId}` })).json().data
    expect(query).not.toHaveProperty('recipient')
    expect(query).not.toHaveProperty('notifications')
    // Never in a webhook's body.
    const [leaked] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE channel = 'webhook' AND payload::text ILIKE '%muster%'`)
    expect(leaked!.n).toBe(0)
  })

  it('sends nothing more to an address unsubscribed with one click, for any task of that shop', async () => {
    const taskId = await subscribe(`FA${Date.now()}`, { email: 'bo@example.com' })
    const sender = email()
    await walk(taskId, 3, sender)
    const link = /^List-Unsubscribe: <https:\/\/track\.example\/u\/([A-Za-z0-9_-]+)>/m.exec(smtp.received[0]!.raw)![1]!
    const page = await t.app.inject({ method: 'GET', url: `/u/${link}` })
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('Unsubscribe from parcel updates')
    const click = await t.app.inject({
      method: 'POST',
      url: `/u/${link}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    })
    expect(click.statusCode).toBe(200)
    expect(click.body).toBe('')
    expect((await t.app.inject({ method: 'GET', url: `/u/${link}` })).body).toContain('You are unsubscribed')

    const received = smtp.received.length
    const other = await subscribe(`FA${Date.now() + 1}`, { email: 'bo@EXAMPLE.com' })
    await walk(other, 3, sender)
    await sender.close()
    expect(smtp.received).toHaveLength(received)
    const rows = await messagesOf(other)
    expect(rows.map((r) => [r.trigger, r.status])).toEqual([['in_transit', 'failed']])
    expect(rows[0]!.error_message).toContain('unsubscribed')
    expect((await t.app.inject({ method: 'GET', url: '/u/not-a-token' })).statusCode).toBe(404)
  })

  it('retries a relay that defers (4xx) or cannot be reached, and refuses for good and suppresses an address the relay refuses (5xx)', async () => {
    const deferred = await subscribe(`FA${Date.now()}`, { email: 'later@example.com' })
    const refused = await subscribe(`FA${Date.now() + 1}`, { email: 'gone@example.com' })
    let deferrals = 0
    smtp.rcpt = (address) =>
      address === 'gone@example.com'
        ? { code: 550, text: '5.1.1 <gone@example.com>: Recipient address rejected' }
        : deferrals++ < 1
          ? { code: 451, text: '4.7.1 Try again later' }
          : { accept: true }
    const service = story.refresh(t.db)
    // Two fetches: the label, then in transit.
    const fetch = async (taskIds: number[]) => {
      for (let stage = 0; stage < 2; stage++) {
        await t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = ANY($1)', [taskIds])
        await service.runRound()
        story.next()
      }
    }
    await fetch([deferred, refused])
    const sender = email()
    await sendAll(sender, deferred)
    await sendAll(sender, refused)
    const [later] = await messagesOf(deferred)
    expect(later).toMatchObject({ status: 'success', attempt_count: 2 })
    const [gone] = await messagesOf(refused)
    expect(gone).toMatchObject({ status: 'failed', attempt_count: 1 })
    // The relay's words are kept without the address.
    expect(gone!.error_message).toContain('550')
    expect(gone!.error_message).not.toContain('gone@example.com')
    const reasons = await t.db.query<{ reason: string }>(
      `SELECT suppressed_reason AS reason FROM recipient_addresses WHERE suppressed_at IS NOT NULL AND user_id = $1 ORDER BY suppressed_at`,
      [shop.userId],
    )
    // The one-click of the test before, and the relay's refusal.
    expect(reasons.map((r) => r.reason)).toEqual(['unsubscribed', 'refused by the mail relay'])

    // A dead relay: the attempt fails and waits for the next one.
    const dead = await subscribe(`FA${Date.now() + 2}`, { email: 'dead@example.com' })
    await fetch([dead])
    const nowhere = email('smtp://127.0.0.1:1')
    await sendAll(nowhere, dead, (rows) => rows.some((r) => r.status === 'retry_wait'))
    const [waiting] = await messagesOf(dead)
    expect(waiting!.error_message).toContain('could not be reached')
    await Promise.all([sender.close(), nowhere.close()])
  })

  it('sends each message once when two workers send from one outbox', async () => {
    const tasks: number[] = []
    for (let i = 0; i < 20; i++) tasks.push(await subscribe(`FA${Date.now()}${i}`, { email: `many${i}@example.com` }))
    const service = story.refresh(t.db)
    for (let stage = 0; stage < 2; stage++) {
      await t.db.query('UPDATE task_schedule SET next_refresh_at = now() WHERE task_id = ANY($1)', [tasks])
      await service.runRound()
      story.next()
    }
    const [a, b] = [email(), email()]
    await waitFor(
      async () => {
        await Promise.all([a.runRound(), b.runRound()])
        await Promise.all([a.drain(), b.drain()])
        const [left] = await t.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM deliveries WHERE channel = 'email' AND status <> 'success' AND task_id = ANY($1)`,
          [tasks],
        )
        return left!.n === 0
      },
      { what: 'the messages to be sent by two workers' },
    )
    // (The dead relay's message of the test before goes too, now that a relay answers.)
    const mine = () => smtp.received.filter((m) => m.to[0]!.startsWith('many'))
    expect(mine()).toHaveLength(20)
    expect(new Set(mine().map((m) => m.to[0])).size).toBe(20)

    await Promise.all([a.close(), b.close()])
  })

  it('refuses a recipient whose address is not one, with a line break or without a way to reach them', async () => {
    for (const recipient of [
      { email: 'ana@example.com\r\nBcc: all@example.com' },
      { email: 'not an address' },
      { name: 'Ana' },
      { email: `${'a'.repeat(250)}@example.com` },
    ]) {
      const res = await t.as(shop.token, {
        method: 'POST',
        url: '/openapi/tracking-subscriptions',
        payload: { carrierCode: 'FEDEX', trackingNumber: `FA${Date.now()}`, callbackUrl: 'https://shop.example/hook', recipient },
      })
      expect(res.statusCode, JSON.stringify(recipient)).toBe(400)
      expect(res.json().data.error).toBe('validation_error')
    }
  })
})
