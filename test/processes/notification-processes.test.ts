import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRunDatabase, type RunDatabase } from '../support/run-database'
import { startService, type ServiceProcess } from '../support/service-process'
import { SmtpSink } from '../support/smtp-sink'
import { waitFor } from '../support/wait-for'
import { quietUntil } from '../../src/domain/quiet-hours'

/** The zones of the candidate numbers (src/notifications/phone-zones.ts says the same). */
const ZONES: Record<string, string[]> = {
  '+447700900123': ['Europe/London'],
  '+18085550123': ['Pacific/Honolulu'],
  '+79161234567': ['Europe/Moscow'],
  '+61412345678': ['Australia/Sydney'],
}

// The customer's email in the service as `npm start` runs it (ROLE=all), with a relay on loopback:
// the process is killed while the relay holds its first message unanswered; the next process takes
// the message up when its lease runs out and sends it again, with the same Message-ID.

const ADMIN_TOKEN = 'notification-process-admin-token'
const smtp = new SmtpSink()
let run: RunDatabase

async function call(service: ServiceProcess, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } }
}

beforeAll(async () => {
  await smtp.start()
  run = await createRunDatabase()
})
afterAll(async () => {
  await smtp.stop()
  await run?.close()
})

describe("the customer's email in the running service", () => {
  it('sends a message again after the sender was killed mid-send, with the same Message-ID, and records it once', async () => {
    const env = {
      ...run.env,
      ADMIN_TOKEN,
      SMTP_URL: smtp.url,
      NOTIFY_FROM: 'parcels@notify.example',
      // A lease of 3 × 3 s + 5 s; a retry 1 s after the interrupted attempt.
      SMTP_TIMEOUT_MS: '3000',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1',
      SIMULATOR_STEP_SECONDS: '1',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    }
    smtp.hold = (n) => n === 1
    let service = await startService(env)
    const { token } = (await call(service, 'POST', '/admin/api-users', ADMIN_TOKEN, { name: 'shop' })).body.data as { token: string }
    const settings = { email: { enabled: true, triggers: ['in_transit'], fromName: 'Kill Shop', replyTo: null }, sms: { enabled: false, triggers: [] } }
    expect((await call(service, 'PUT', '/openapi/notifications', token, settings)).status).toBe(200)
    const subscribed = await call(service, 'POST', '/openapi/tracking-subscriptions', token, {
      carrierCode: 'FEDEX',
      trackingNumber: 'FAKILL1',
      callbackUrl: 'http://127.0.0.1:9/hook',
      recipient: { email: 'kill@example.com', language: 'fr' },
    })
    const taskId = subscribed.body.data.taskId as number
    await waitFor(() => smtp.received.length === 1, { timeoutMs: 30_000, what: () => `the first message at the relay\n${service.output().slice(-2000)}` })
    expect(await service.stop('SIGKILL')).toBe('SIGKILL')

    service = await startService(env)
    try {
      let last: unknown
      const task = await waitFor(
        async () => {
          const { data } = (last = (await call(service, 'GET', `/openapi/tracking-subscriptions/${taskId}`, token)).body)
          const [message] = data.notifications as { status: string }[]
          return message?.status === 'success' ? data : undefined
        },
        { timeoutMs: 40_000, what: () => `the message sent again: ${JSON.stringify(last)}\n${service.output().slice(-2000)}` },
      )
      expect(task.notifications).toMatchObject([{ channel: 'email', trigger: 'in_transit', status: 'success', attempts: 2, error: '' }])
      expect(smtp.received).toHaveLength(2)
      const [first, second] = smtp.received.map((m) => m.parsed)
      expect(second!.messageId).toBe(first!.messageId)
      expect(second!.subject).toBe(first!.subject)
      expect(second!.subject).toContain('Votre colis est en route')
    } finally {
      await service.stop()
    }
  }, 90_000)

  it('without SMTP_URL, sends to the built-in relay on loopback, which lists what it kept', async () => {
    const service = await startService({ ...run.env, ADMIN_TOKEN, SIMULATOR_STEP_SECONDS: '1', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
    try {
      const { token } = (await call(service, 'POST', '/admin/api-users', ADMIN_TOKEN, { name: 'local shop' })).body.data as { token: string }
      const settings = { email: { enabled: true, triggers: ['in_transit'], fromName: 'Local Shop', replyTo: null }, sms: { enabled: false, triggers: [] } }
      expect((await call(service, 'PUT', '/openapi/notifications', token, settings)).status).toBe(200)
      const { taskId } = (
        await call(service, 'POST', '/openapi/tracking-subscriptions', token, {
          carrierCode: 'FEDEX',
          trackingNumber: 'FALOCAL1',
          callbackUrl: 'http://127.0.0.1:9/hook',
          recipient: { email: 'local@example.com', language: 'es' },
        })
      ).body.data as { taskId: number }
      await waitFor(
        async () => {
          const { data } = (await call(service, 'GET', `/openapi/tracking-subscriptions/${taskId}`, token)).body
          return (data.notifications as { status: string }[])[0]?.status === 'success'
        },
        { timeoutMs: 30_000, what: () => `the message sent to the built-in relay\n${service.output().slice(-2000)}` },
      )
      const relay = /"relay":"(http:\/\/127\.0\.0\.1:\d+\/)"/.exec(service.output())?.[1]
      expect(relay, service.output().slice(-2000)).toBeDefined()
      const { messages } = (await (await fetch(relay!)).json()) as { messages: { n: number; to: string[]; subject: string }[] }
      expect(messages).toHaveLength(1)
      expect(messages[0]).toMatchObject({ to: ['local@example.com'] })
      const raw = await (await fetch(`${relay}${messages[0]!.n}`)).text()
      expect(raw).toMatch(/^From: Local Shop <parcels@mail-relay\.invalid>\r$/m)
      expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m)
    } finally {
      await service.stop()
    }
  }, 60_000)

  it('without TWILIO_*, texts through the built-in fake Twilio, whose signed status callbacks the service takes', async () => {
    // A number where it is day now and in half an hour (the quiet hours hold a text at night).
    const soon = [new Date(), new Date(Date.now() + 1_800_000)]
    let phone: string | undefined
    for (const candidate of ['+447700900123', '+18085550123', '+79161234567', '+61412345678'])
      if (phone === undefined && soon.every((at) => quietUntil(ZONES[candidate]!, at) === undefined)) phone = candidate
    expect(phone).toBeDefined()
    const service = await startService({ ...run.env, ADMIN_TOKEN, SIMULATOR_STEP_SECONDS: '1', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
    try {
      const { token } = (await call(service, 'POST', '/admin/api-users', ADMIN_TOKEN, { name: 'texting shop' })).body.data as { token: string }
      const settings = { email: { enabled: false, triggers: [], fromName: 'Text Shop', replyTo: null }, sms: { enabled: true, triggers: ['in_transit'] } }
      expect((await call(service, 'PUT', '/openapi/notifications', token, settings)).status).toBe(200)
      const { taskId } = (
        await call(service, 'POST', '/openapi/tracking-subscriptions', token, {
          carrierCode: 'FEDEX',
          trackingNumber: 'FATEXT1',
          callbackUrl: 'http://127.0.0.1:9/hook',
          recipient: { phone },
        })
      ).body.data as { taskId: number }
      await waitFor(
        async () => {
          const { data } = (await call(service, 'GET', `/openapi/tracking-subscriptions/${taskId}`, token)).body
          return (data.notifications as { status: string }[])[0]?.status === 'success'
        },
        { timeoutMs: 30_000, what: () => `the text sent to the built-in fake Twilio\n${service.output().slice(-2000)}` },
      )
      const list = /"twilio":"(http:\/\/127\.0\.0\.1:\d+\/messages)"/.exec(service.output())?.[1]
      expect(list, service.output().slice(-2000)).toBeDefined()
      const { messages } = (await (await fetch(list!)).json()) as { messages: { sid: string; to: string; body: string }[] }
      expect(messages).toHaveLength(1)
      expect(messages[0]).toMatchObject({ to: phone, body: expect.stringMatching(/^Text Shop: Your parcel is on its way\. /) })
      // The fake's callbacks reached the service and were verified: the text is known delivered.
      const db = await run.open()
      try {
        await waitFor(
          async () =>
            (await db.query<{ provider_status: string }>(`SELECT provider_status FROM deliveries WHERE task_id = $1 AND channel = 'sms'`, [taskId]))[0]
              ?.provider_status === 'delivered',
          { timeoutMs: 10_000, what: () => `the delivered callback\n${service.output().slice(-2000)}` },
        )
      } finally {
        await db.close()
      }
    } finally {
      await service.stop()
    }
  }, 60_000)
})
