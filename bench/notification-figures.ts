import { createServer } from 'node:http'
import nodemailer from 'nodemailer'
import pg from 'pg'
import { SMTPServer } from 'smtp-server'
import { createCarrierSimulator } from '../src/carriers/registry'
import { TRIGGERS } from '../src/domain/notifications'
import { trackingPageOf, type TrackingPageSource } from '../src/domain/tracking-page'
import { renderEmail } from '../src/notifications/email-message'
import { startService } from '../test/support/service-process'
import { simulatorEnv } from '../test/support/simulator-env'
import { finishedAt, makeDue, newest, SCHEDULED } from './finished'
import { fmt, type FigureContext } from './report'
import { REFRESH_FIGURE_WORKER_ENV } from './worker-settings'

/**
 * The customer's email (npm run bench; --notifications-only x alone):
 *
 * - render time: one message (subject, text, HTML) from a tracking page's model, in the bench;
 * - messages/s: N messages made due at once, sent by one worker process through a real SMTP server
 *   on loopback (smtp-server, in the bench), against nodemailer sending the same rendered messages
 *   to the same server with the same concurrency from the bench (its ceiling): target ≥ 0.5×;
 * - the refresh with email on for every task against off: a user's tasks in transit fetched into
 *   delivered at once, each with a recipient, the user's email on (each change plans a message,
 *   sent meanwhile) or off, in three pairs, each order in turn: target ≥ 0.9×.
 */

const N = 2000
const TASKS = 3000
const PAIRS = 3
const CONCURRENCY = 8
const SETTINGS = { email: { enabled: true, triggers: TRIGGERS, fromName: null, replyTo: null }, sms: { enabled: false, triggers: [] } }

function sample(): ReturnType<typeof renderEmail> {
  const at = (hours: number) => new Date(Date.UTC(2026, 10, 26, 9) + hours * 3_600_000)
  const source: TrackingPageSource = {
    carrierCode: 'FEDEX',
    trackingNumber: '794612340001',
    externalReferenceNo: 'NK-4001',
    milestone: 'delivered',
    estimatedDeliveryAt: null,
    prediction: null,
    originAddress: { city: 'MEMPHIS', state: 'TN', country: 'US' },
    destinationAddress: { city: 'HAMBURG', country: 'DE' },
    proofOfDelivery: null,
    updatedAt: at(0),
    events: [
      { eventTime: at(-20), utcOffset: '-06:00', description: 'Picked up', city: 'MEMPHIS', state: 'TN', country: 'US', milestone: 'in_transit' },
      { eventTime: at(-1), utcOffset: '+01:00', description: 'Delivered', city: 'HAMBURG', state: '', country: 'DE', milestone: 'delivered' },
    ],
  }
  const brand = {
    displayName: 'Bench Shop',
    logoUrl: null,
    accentColor: '#0f766e',
    supportUrl: null,
    supportEmail: 'help@shop.example',
    showReference: true,
    defaultLanguage: 'en' as const,
  }
  return renderEmail({
    page: trackingPageOf(source, brand, { name: 'FedEx', trackingUrl: '' }, 'de'),
    trigger: 'delivered',
    name: 'Ana',
    pageUrl: 'https://track.example/t/x',
    unsubscribeUrl: 'https://track.example/u/y',
  })
}

export async function notificationFigures({ kind, env, dbUrl, adminToken, row, seconds }: FigureContext) {
  // 1. Render time, warmed up first.
  for (let i = 0; i < 200; i++) sample()
  let started = performance.now()
  for (let i = 0; i < N; i++) sample()
  row(kind, 'email: render one message (subject, text, HTML)', `${fmt(((performance.now() - started) * 1000) / N)} µs`, '', '', '')

  let received = 0
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 1024 * 1024,
    onData(stream, _session, callback) {
      stream.on('data', () => {})
      stream.on('end', () => {
        received++
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  // The tasks' callbacks: their webhooks answered at once, so that they are done before the figures.
  const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')))
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`
  const smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`
  const sim = createCarrierSimulator({ stepMs: 0 })
  await sim.start()
  const startWorker = (relay: boolean) =>
    startService({
      ...env,
      ROLE: kind === 'embedded' ? 'all' : 'worker',
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      ...(relay ? { SMTP_URL: smtpUrl, NOTIFY_FROM: 'notify@bench.example', SMTP_CONCURRENCY: String(CONCURRENCY) } : {}),
      ...simulatorEnv(sim),
      ...REFRESH_FIGURE_WORKER_ENV,
      // Tasks made due are found within 50 ms (makeDue tells no worker): a second's poll was up to
      // half of a measurement, and made the pairs' ratios 0.7-3.6.
      REFRESH_POLL_MS: '50',
    })
  // The worker first: the embedded database's address is known once its server runs.
  let worker = await startWorker(true)
  let client = new pg.Client({ connectionString: dbUrl() })
  await client.connect()
  let waitFor = finishedAt(client)
  try {
    // 3. The refresh, email on against off: tasks in transit that a fetch delivers. With the relay
    // (the messages sent meanwhile, on the same two cores as the refresh, the relay included), then
    // with none (the messages planned, none sent).
    const rate = async (notify: boolean) => {
      const user = await shopWithTasks(client, notify ? 'notified' : 'quiet', notify, TASKS, callbackUrl)
      const from = Date.now()
      await makeDue(client, 'user_id = $1', [user])
      const done = await waitFor(
        `SELECT count(*) FILTER (WHERE last_fetched_at IS NULL) = 0 AS done, ${newest('last_fetched_at')} FROM ${SCHEDULED} WHERE user_id = $1`,
        [user],
      )
      return { user, rate: TASKS / ((done - from) / 1000) }
    }
    let onUser = 0
    // In pairs, each order in turn; each measurement waits for the deliveries it made to be done.
    const pairs = async (label: string, done: string) => {
      const measured: { on: number; off: number }[] = []
      for (let pair = 0; pair < PAIRS; pair++) {
        const m = { on: 0, off: 0 }
        for (const notify of pair % 2 === 0 ? [false, true] : [true, false]) {
          const { user, rate: r } = await rate(notify)
          await waitFor(`SELECT count(*) FILTER (WHERE status NOT IN ('success', 'failed')) = 0 AS done FROM deliveries WHERE ${done}`)
          m[notify ? 'on' : 'off'] = r
          if (notify) onUser = user
        }
        measured.push(m)
      }
      const on = measured.reduce((sum, p) => sum + p.on, 0) / PAIRS
      const off = measured.reduce((sum, p) => sum + p.off, 0) / PAIRS
      row(
        kind,
        `refresh with email on for every task (${fmt(TASKS)} messages for ${fmt(TASKS)} tasks), ${label}: numbers/s, mean of ${PAIRS} pairs`,
        fmt(on),
        fmt(off),
        `${(on / off).toFixed(2)}×`,
        '≥ 0.9×',
      )
      row(kind, '  pair ratios, email on / off', measured.map((p) => (p.on / p.off).toFixed(2)).join(', '), '', '', '')
    }
    await pairs('sent meanwhile', 'true')
    const [{ made }] = (
      await client.query<{ made: number }>(`SELECT count(*)::int AS made FROM deliveries WHERE channel = 'email' AND status = 'success' AND user_id = $1`, [
        onUser,
      ])
    ).rows as [{ made: number }]
    if (made !== TASKS) console.log(`  (${made} of ${TASKS} messages sent)`)

    // 2. Messages/s by one worker process, against nodemailer alone with the same concurrency.
    await client.query(
      `INSERT INTO deliveries (task_id, user_id, channel, target, trigger, event_type, webhook_id, payload, next_attempt_at)
       SELECT t.id, t.user_id, 'email', 'recipient', 'exception', 'notification.exception', 'msg_mail' || t.id, '{"trigger":"exception"}', now() + interval '1 hour'
         FROM tracking_tasks t WHERE t.user_id = $1 ORDER BY t.id LIMIT $2`,
      [onUser, N],
    )
    const before = received
    started = Date.now()
    await client.query(`UPDATE deliveries SET next_attempt_at = now() WHERE webhook_id LIKE 'msg_mail%'`)
    const sent = await waitFor(
      `SELECT count(*) FILTER (WHERE status <> 'success') = 0 AS done, ${newest('updated_at')} FROM deliveries WHERE webhook_id LIKE 'msg_mail%'`,
    )
    const serviceRate = N / ((sent - started) / 1000)
    if (received - before < N) console.log(`  (the relay saw ${received - before} of ${N})`)
    const ceiling = await nodemailerCeiling(smtpUrl, Math.min(seconds, 5))
    row(kind, 'emails sent /s (one worker process, loopback relay)', fmt(serviceRate), fmt(ceiling), `${(serviceRate / ceiling).toFixed(2)}×`, '≥ 0.5×')

    // The messages planned and none sent: what the refresh's own part costs. (An embedded
    // database stops with its worker: connected again.)
    await client.end()
    await worker.stop()
    worker = await startWorker(false)
    client = new pg.Client({ connectionString: dbUrl() })
    await client.connect()
    waitFor = finishedAt(client)
    await pairs('planned, no relay', "channel = 'webhook'")
  } finally {
    await client.end()
    await worker.stop()
    await sim.stop()
    await new Promise<void>((resolve) => smtp.close(() => resolve()))
    receiver.close()
  }
}

/** A user with email `on` or off and `count` tasks in transit (prefix DLN), each with a recipient; its id. */
async function shopWithTasks(client: pg.Client, name: string, on: boolean, count: number, callbackUrl: string): Promise<number> {
  const [{ id }] = (
    await client.query<{ id: number }>(
      `INSERT INTO api_users (name, webhook_secret, notification_settings) VALUES ($1, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', $2) RETURNING id`,
      [name, on ? JSON.stringify(SETTINGS) : null],
    )
  ).rows as [{ id: number }]
  await client.query(
    `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, inactive_since, standard_status, milestone, carrier_status)
     SELECT $1::bigint, CASE WHEN g % 2 = 0 THEN 'FEDEX' ELSE 'UPARCEL' END, 'DLN' || $1::text || 'X' || g, $3, now(), 'in_transit', 'in_transit', 'In transit'
       FROM generate_series(1, $2::int) g`,
    [id, count, callbackUrl],
  )
  await client.query(
    `INSERT INTO task_recipients (task_id, user_id, email, email_hash, language)
     SELECT id, user_id, 'customer' || id || '@example.com', 'bench' || id, 'de' FROM tracking_tasks WHERE user_id = $1`,
    [id],
  )
  await client.query(
    `INSERT INTO recipient_addresses (user_id, channel, address_hash, token, language)
     SELECT user_id, 'email', email_hash, md5(email_hash), 'de' FROM task_recipients WHERE user_id = $1`,
    [id],
  )
  return id
}

/** nodemailer alone: the same rendered message sent to the relay by a pool of CONCURRENCY connections for `seconds`, messages/s. */
async function nodemailerCeiling(smtpUrl: string, seconds: number): Promise<number> {
  const transport = nodemailer.createTransport({ url: smtpUrl, pool: true, maxConnections: CONCURRENCY } as Parameters<typeof nodemailer.createTransport>[0])
  const message = sample()
  let sent = 0
  const until = Date.now() + seconds * 1000
  const started = Date.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, lane) => {
      for (let i = 0; Date.now() < until; i++) {
        await transport.sendMail({
          from: { name: 'Bench Shop', address: 'notify@bench.example' },
          to: `customer${lane}x${i}@example.com`,
          subject: message.subject,
          text: message.text,
          html: message.html,
          messageId: `<bench${lane}x${i}@bench.example>`,
          headers: { 'List-Unsubscribe': '<https://track.example/u/y>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        })
        sent++
      }
    }),
  )
  const rate = sent / ((Date.now() - started) / 1000)
  transport.close()
  return rate
}
