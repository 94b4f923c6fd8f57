import { AuditRepository } from '../db/audit.repository'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config/config'
import type { Database } from '../db/database'
import { DELIVERIES_DUE, PUSHES_DUE, TASKS_DUE } from '../db/notifier'
import type { OutboxRepository } from '../db/outbox.repository'
import type { ServiceMetrics } from '../observability/metrics'
import { SettingsRepository } from '../db/settings.repository'
import type { CircuitView } from '../domain/circuit-breaker'
import { RefreshRepository } from '../db/refresh.repository'
import { CarrierLoad } from '../services/carrier-load'
import { RefreshApply } from '../services/refresh-apply'
import { RefreshService, type CarrierChannel, type RefreshHooks, type RefreshOptions } from '../services/refresh.service'
import { RetentionService } from '../services/retention.service'
import { OutboxService, type ChannelMetrics, type DeliveryHooks, type DeliveryLog, type DeliveryOptions, type HostView } from '../services/outbox.service'
import { WebhookSender } from '../webhooks/webhook-sender'
import { EmailSender } from '../notifications/email-sender'
import { MailRelay } from '../simulator/mail-relay'
import { FakeTwilio } from '../simulator/fake-twilio'
import { TwilioSmsSender } from '../notifications/twilio-sms-sender'
import { phoneZones } from '../notifications/phone-zones'
import { BUILT_IN_TWILIO_FROM, builtInTwilio } from './built-in-twilio'
import { TrackingPageRepository } from '../db/tracking-page.repository'
import { RecipientRepository } from '../db/recipient.repository'
import { SecretsRepository } from '../db/secrets.repository'
import { TrackingPageService } from '../services/tracking-page.service'
import { NotificationService } from '../services/notification.service'
import { AuditTrail } from '../services/audit-trail'
import { WebhookHttp } from '../webhooks/webhook-http'
import { WorkLoop } from '../workers/work-loop'
import type { Carriers } from './carriers'
import { CarrierCorrectionService } from '../services/carrier-correction.service'
import { RouteRegistrationRepository } from '../db/route-registration.repository'
import { RouteRegistrationService } from '../services/route-registration.service'
import { InboundRepository } from '../db/inbound.repository'
import { InboundApplyService } from '../services/inbound-apply.service'
import { PushSubscriptionRepository } from '../db/push-subscription.repository'
import { PushSubscriptionService } from '../services/push-subscription.service'
import { pushReaderOf, type PushReader } from '../carriers/carrier-push'
import type { ApiPressure } from '../services/api-pressure'
import type { MessageChannel } from '../domain/notifications'
import type { Language, TrackingPage } from '../domain/tracking-page'

const RETENTION_POLL_MS = 60_000
/** Registrations at a route: a new task's number is registered within seconds (a NOTIFY of due tasks wakes it sooner). */
const REGISTRATION_POLL_MS = 5_000
/** Stored pushes: a gateway in this process wakes the loop at once, another process's by its NOTIFY. */
const INBOUND_POLL_MS = 2_000
/** A task a push made terminal is fetched once more this soon (sooner when it is reconciled more often than every ten minutes). */
const TERMINAL_RECONCILE_MS = 60_000
/** The built-in relay's sender: a domain that is never anyone's (RFC 2606). */
const BUILT_IN_FROM = 'parcels@mail-relay.invalid'
// Messages in flight per connection to the relay, and claimed once half of them are free: one
// worker process through a loopback relay, 8 connections (bench/notification-figures.ts):
// 4 a connection claimed at every free slot, 574 messages/s (0.42x nodemailer alone); 4, claimed
// by halves, 801-848 (0.47-0.48x); 8 by halves, 859-887 (0.51x); 4 claimed only when all were free,
// 690-740. Nearly every slot's claim had been a statement of its own, for one message.
const MESSAGES_PER_CONNECTION = 8

export interface Workers {
  start(): Promise<void>
  /** New tasks were created in this process: refresh them now. */
  wakeRefresh(): void
  /** Stored pushes to apply. */
  wakeInbound(): void
  /** Each carrier's circuit breaker, for /readyz. */
  carrierCircuits(): Record<string, CircuitView>
  /** The webhook receivers' adaptive limits in this process, for the console. */
  webhookHosts(): HostView[]
  /** Deliveries were made due in this process: send them now. */
  wakeWebhooks(): void
  /** Stops claiming, then waits for the rounds and attempts in flight. */
  stop(): Promise<void>
}

/** The refresh loop and the webhook loop of a worker process (ROLE=all or worker). */
export function createWorkers(
  config: Config,
  deps: {
    db: Database
    carriers: Carriers
    deliveryRepository: OutboxRepository
    metrics: ServiceMetrics
    log: FastifyBaseLogger
    /** Tells other processes' webhook workers that deliveries are due (a debounced NOTIFY). */
    notifyDeliveriesDue: () => void
    /** The API of this process (ROLE=all), which the refresh yields to while it is saturated. */
    pressure?: ApiPressure
  },
): Workers {
  const { db, carriers, deliveryRepository, metrics, log, notifyDeliveriesDue, pressure } = deps
  const webhookHttp = new WebhookHttp({
    timeoutMs: config.webhook.timeoutMs,
    allowPrivateTargets: config.webhook.allowPrivateTargets,
    connectionsPerHost: Math.max(config.webhook.hostConcurrency, config.webhook.hostConcurrencyMax),
  })
  const delivery = createWebhookDelivery(
    db,
    deliveryRepository,
    webhookHttp,
    {
      scheduleMs: config.webhook.scheduleMs,
      // Longer than any attempt can take, so only a dead worker loses a lease.
      leaseMs: config.webhook.timeoutMs + 5_000,
      concurrency: config.webhook.concurrency,
      hostConcurrency: config.webhook.hostConcurrency,
      hostConcurrencyMax: Math.max(config.webhook.hostConcurrency, config.webhook.hostConcurrencyMax),
    },
    metrics,
    log,
    // A finished attempt frees a slot: claim more at once.
    { onSlotFree: () => webhookLoop.wake() },
  )
  const webhookLoop = new WorkLoop(
    'webhooks',
    () => delivery.runRound(),
    { pollMs: config.webhook.pollMs, listen: (wake) => db.listen(DELIVERIES_DUE, wake) },
    log,
  )

  // The customer's messages: a loop per channel on the same outbox, each to its provider; without
  // one (outside production), to a built-in stand-in on loopback, started with the workers.
  const messages: { sending: OutboxService; loop: WorkLoop }[] = []
  const builtIns: { stop(): Promise<void> }[] = []
  const startMessages = async (name: string, create: (hooks: DeliveryHooks) => OutboxService) => {
    const sending = create({ onSlotFree: () => loop.wake() })
    const loop: WorkLoop = new WorkLoop(
      name,
      () => sending.runRound(),
      { pollMs: config.webhook.pollMs, listen: (wake) => db.listen(DELIVERIES_DUE, wake) },
      log,
    )
    messages.push({ sending, loop })
    await loop.start()
  }
  const startEmail = async () => {
    let settings = config.email
    if (!settings && !config.production) {
      const relay = new MailRelay()
      await relay.start()
      builtIns.push(relay)
      settings = { smtpUrl: relay.smtpUrl, from: BUILT_IN_FROM, timeoutMs: 15_000, concurrency: 8 }
      log.warn(
        { relay: relay.url },
        `no SMTP_URL: the customer's emails go to the built-in mail relay on loopback, which keeps the last 200 (listed at ${relay.url})`,
      )
    }
    const email = settings
    if (email) await startMessages('email', (hooks) => createEmailDelivery(db, deliveryRepository, { ...config, email }, metrics, log, hooks))
  }
  const startSms = async () => {
    let settings = config.sms
    if (!settings && !config.production) {
      const twilio = new FakeTwilio({ ...(await builtInTwilio(new SecretsRepository(db))), inboundUrl: `${config.publicBaseUrl}/sms/twilio/inbound` })
      await twilio.start()
      builtIns.push(twilio)
      settings = {
        accountSid: twilio.accountSid,
        authToken: twilio.authToken,
        from: BUILT_IN_TWILIO_FROM,
        apiUrl: twilio.url,
        timeoutMs: 10_000,
        concurrency: 4,
      }
      log.warn(
        { twilio: `${twilio.url}/messages` },
        `no TWILIO_ACCOUNT_SID: the customer's texts go to the built-in fake Twilio on loopback (listed at ${twilio.url}/messages)`,
      )
    }
    const sms = settings
    if (sms) await startMessages('sms', (hooks) => createSmsDelivery(db, deliveryRepository, { ...config, sms }, metrics, log, hooks))
  }
  const wakeDeliveries = () => {
    webhookLoop.wake()
    for (const { loop } of messages) loop.wake()
  }

  const pushSubscriptions = new PushSubscriptionRepository(db)
  const refresh = createRefreshService(
    db,
    carriers.channels,
    {
      pollIntervalMs: config.pollIntervalMs,
      expireAfterMs: config.expireAfterMs,
      // Longer than a round's carrier calls can take (a request waits at most one timeout).
      leaseMs: Math.max(config.refreshLeaseMs, config.carrierTimeoutMs * 2),
      claimLimit: config.refreshClaimLimit,
      retryBaseMs: 30_000,
      retryMaxMs: Math.min(config.pollIntervalMs, 3_600_000),
    },
    metrics,
    {
      // A status change wakes this process's webhook loop directly (quicker than its own
      // NOTIFY coming back), and other processes' through the NOTIFY.
      onNotification: () => {
        wakeDeliveries()
        notifyDeliveriesDue()
      },
      pressure,
      reconcile: new Map(
        carriers.pushes.map(({ carrierCode, reconcileMs }) => [
          carrierCode,
          {
            intervalMs: reconcileMs,
            subscribed: (numbers: readonly string[]) => pushSubscriptions.subscribed(carrierCode, numbers),
            defer: (numbers: readonly string[]) => pushSubscriptions.deferPolls(carrierCode, numbers, reconcileMs),
          },
        ]),
      ),
    },
  )
  // One loop per carrier: a slow or failing carrier never delays another. A round that claimed
  // all it asked for goes on at once; one that saw a full request fall due before the next tick
  // wakes then.
  const refreshLoops = [...carriers.channels.keys()].map(
    (code) => new WorkLoop(`refresh ${code}`, () => refresh.runRound(code), { pollMs: config.refreshPollMs }, log),
  )
  // Pushes stored by the gateway (any process's) are applied through the refresh's apply.
  const readers: PushReader[] = [
    ...carriers.routes.map(({ route }) => route),
    ...carriers.pushes.map(({ carrierCode, pushes }) => pushReaderOf(carrierCode, pushes)),
  ]
  const inbound = new InboundApplyService(db, new InboundRepository(db), new RefreshRepository(db), new RefreshApply(db, config.expireAfterMs), {
    readers: new Map(readers.map((reader) => [reader.label, reader])),
    reconcileMs: new Map([
      ...carriers.routes.map(({ route }): [string, number] => [route.code, carriers.channels.get(route.code)?.pollIntervalMs ?? config.routePollIntervalMs]),
      ...carriers.pushes.map(({ carrierCode, reconcileMs }): [string, number] => [carrierCode, reconcileMs]),
    ]),
    // A pushed delivery is checked once against the carrier's whole answer (its proof, its history).
    terminalRefreshMs: new Map(carriers.pushes.map(({ carrierCode, reconcileMs }) => [carrierCode, Math.min(TERMINAL_RECONCILE_MS, reconcileMs / 10)])),
    onNotification: () => {
      wakeDeliveries()
      notifyDeliveriesDue()
    },
    counted: (source, outcome) => metrics.inboundPushes.inc({ source, outcome }),
  })
  // Woken by the gateway of this process directly, by other processes' through their NOTIFY.
  const inboundLoops =
    readers.length > 0
      ? [new WorkLoop('inbound pushes', () => inbound.runRound(), { pollMs: INBOUND_POLL_MS, listen: (onWake) => db.listen(PUSHES_DUE, onWake) }, log)]
      : []
  // Each route's registrations follow its tasks: registered when one is active, stopped when none is.
  const registrations = new RouteRegistrationService(new RouteRegistrationRepository(db), carriers.routes)
  // Each pushing carrier's subscriptions follow its tasks: subscribed while one is active, renewed before they end.
  const subscriptions = new PushSubscriptionService(pushSubscriptions, new RouteRegistrationRepository(db), carriers.pushes, Date.now, (carrier, outcome) =>
    metrics.pushSubscriptionRequests.inc({ carrier, outcome }),
  )
  const registrationLoops = [
    ...(carriers.routes.length > 0 ? [new WorkLoop('route registrations', () => registrations.runRound(), { pollMs: REGISTRATION_POLL_MS }, log)] : []),
    ...(carriers.pushes.length > 0 ? [new WorkLoop('push subscriptions', () => subscriptions.runRound(), { pollMs: REGISTRATION_POLL_MS }, log)] : []),
  ]
  const wakeRefresh = () => [...refreshLoops, ...registrationLoops].forEach((loop) => loop.wake())
  let unlistenTasks: () => Promise<void> = async () => {}

  // Retention: a full batch means more may be waiting (the loop goes on at once); otherwise a look
  // a minute is soon enough for a rule counted in days.
  const retention = new RetentionService(db, new SettingsRepository(db), new AuditRepository(db), new RecipientRepository(db), () => {
    webhookLoop.wake()
    notifyDeliveriesDue()
  })
  const retentionLoop = new WorkLoop('retention', () => retention.runRound(), { pollMs: RETENTION_POLL_MS }, log)

  // Auto-correct: rare work, looked for once a minute (CARRIER_CORRECTION_POLL_MS); a full claim goes on at once.
  const correction = new CarrierCorrectionService(db, carriers.channels, wakeRefresh, () => {
    webhookLoop.wake()
    notifyDeliveriesDue()
  })
  const correctionLoop = new WorkLoop('carrier correction', () => correction.runRound(), { pollMs: config.carrierCorrectionPollMs }, log)

  return {
    wakeRefresh,
    wakeInbound: () => inboundLoops.forEach((loop) => loop.wake()),
    carrierCircuits: () => refresh.circuits(),
    webhookHosts: () => delivery.hosts(),
    wakeWebhooks: wakeDeliveries,
    async start() {
      await webhookLoop.start()
      await startEmail()
      await startSms()
      unlistenTasks = await db.listen(TASKS_DUE, wakeRefresh)
      for (const loop of [...refreshLoops, ...registrationLoops, ...inboundLoops]) await loop.start()
      await retentionLoop.start()
      await correctionLoop.start()
    },
    async stop() {
      await unlistenTasks()
      await Promise.all([
        ...[...refreshLoops, ...registrationLoops, ...inboundLoops].map((loop) => loop.stop()),
        webhookLoop.stop(),
        ...messages.map(({ loop }) => loop.stop()),
        retentionLoop.stop(),
        correctionLoop.stop(),
      ])
      await Promise.all([delivery.drain(), ...messages.map(({ sending }) => sending.drain())])
      await webhookHttp.close()
      for (const { sending } of messages) await sending.close()
      for (const builtIn of builtIns) await builtIn.stop()
    },
  }
}

/** A refresh service with its parts: the schedule's storage, the apply, the carriers' load. */
export function createRefreshService(
  db: Database,
  carriers: Map<string, CarrierChannel>,
  options: RefreshOptions,
  metrics: ServiceMetrics,
  hooks: RefreshHooks = {},
): RefreshService {
  const repository = new RefreshRepository(db)
  const now = hooks.now ?? (() => new Date())
  const parts = { repository, applier: new RefreshApply(db, options.expireAfterMs), load: new CarrierLoad(repository, () => now().getTime()) }
  return new RefreshService(db, parts, carriers, options, metrics, hooks)
}

/** The webhook channel's loop: the outbox's claim and schedule, the webhook sender, the webhook metrics. */
export function createWebhookDelivery(
  db: Database,
  repository: OutboxRepository,
  http: WebhookHttp,
  options: DeliveryOptions,
  metrics: ServiceMetrics,
  log: DeliveryLog,
  hooks: DeliveryHooks = {},
): OutboxService<'webhook'> {
  const channelMetrics: ChannelMetrics = {
    attempted(verdict, seconds) {
      metrics.webhookAttempts.inc({ outcome: verdict })
      metrics.webhookAttemptSeconds.observe(seconds)
    },
    gateLimit: (host, limit) => metrics.webhookHostLimit.set({ host }, limit),
    gateForgotten: (host) => metrics.webhookHostLimit.remove({ host }),
  }
  return new OutboxService(db, repository, new WebhookSender(http, hooks.now), options, channelMetrics, log, hooks)
}

/**
 * The email channel's loop: the outbox's claim and schedule, the email sender (which renders each
 * message from its task's tracking page when it is sent), the notification metrics.
 */
export function createEmailDelivery(
  db: Database,
  repository: OutboxRepository,
  config: Pick<Config, 'email' | 'webhook' | 'publicBaseUrl'>,
  metrics: ServiceMetrics,
  log: DeliveryLog,
  hooks: DeliveryHooks = {},
): OutboxService<'email'> {
  const settings = config.email!
  const { page, notifications } = messageParts(db)
  const sender = new EmailSender({
    smtpUrl: settings.smtpUrl,
    from: settings.from,
    publicBaseUrl: config.publicBaseUrl,
    timeoutMs: settings.timeoutMs,
    concurrency: settings.concurrency,
    page,
    refused: (userId, email, language) => notifications.suppressRefused(userId, email, language),
  })
  const options: DeliveryOptions = {
    scheduleMs: config.webhook.scheduleMs,
    leaseMs: settings.timeoutMs * 3 + 5_000,
    // More messages in flight than the relay has connections, so that each connection has its next
    // message ready (its page read, rendered) when it is free.
    concurrency: settings.concurrency * MESSAGES_PER_CONNECTION,
    hostConcurrency: settings.concurrency * MESSAGES_PER_CONNECTION,
    hostConcurrencyMax: settings.concurrency * MESSAGES_PER_CONNECTION,
    claimAtLeast: Math.ceil((settings.concurrency * MESSAGES_PER_CONNECTION) / 2),
  }
  return new OutboxService(db, repository, sender, options, messageMetrics(metrics, 'email'), log, hooks)
}

/**
 * The SMS channel's loop: the outbox's claim and schedule, the Twilio sender (which makes each text
 * from its task's tracking page when it is sent, and holds it through the quiet hours), the
 * notification metrics.
 */
export function createSmsDelivery(
  db: Database,
  repository: OutboxRepository,
  config: Pick<Config, 'sms' | 'webhook' | 'publicBaseUrl'>,
  metrics: ServiceMetrics,
  log: DeliveryLog,
  hooks: DeliveryHooks = {},
  /** The clock the quiet hours are read on (tests); the outbox's own schedule keeps `hooks.now`. */
  destinationClock?: () => Date,
): OutboxService<'sms'> {
  const settings = config.sms!
  const { page, notifications } = messageParts(db)
  const sender = new TwilioSmsSender({
    accountSid: settings.accountSid,
    authToken: settings.authToken,
    from: settings.from,
    apiUrl: settings.apiUrl,
    publicBaseUrl: config.publicBaseUrl,
    timeoutMs: settings.timeoutMs,
    ...(destinationClock ? { now: destinationClock } : {}),
    page,
    zones: phoneZones,
    stopped: (userId, phone, language) => notifications.suppressStopped(userId, phone, language),
  })
  const options: DeliveryOptions = {
    scheduleMs: config.webhook.scheduleMs,
    leaseMs: settings.timeoutMs * 2 + 5_000,
    concurrency: settings.concurrency,
    hostConcurrency: settings.concurrency,
    hostConcurrencyMax: settings.concurrency,
  }
  return new OutboxService(db, repository, sender, options, messageMetrics(metrics, 'sms'), log, hooks)
}

/**
 * What a message channel's sender reads besides the outbox: the task's tracking page as it is when
 * the message is sent, in the recipient's language (null: the shop's default), and the
 * notifications' suppressions.
 */
function messageParts(db: Database): {
  page: (token: string, language: Language | null) => Promise<TrackingPage | undefined>
  notifications: NotificationService
} {
  const pageRepository = new TrackingPageRepository(db)
  const audit = new AuditTrail(db, new AuditRepository(db))
  const pages = new TrackingPageService(pageRepository, audit)
  return {
    page: (token, language) => pages.page(token, { lang: language ?? undefined }),
    notifications: new NotificationService(db, new RecipientRepository(db), pageRepository, new SecretsRepository(db), audit),
  }
}

/** A message channel's attempts in `notification_attempts_total`; it has one gate, whose limit is not a metric. */
const messageMetrics = (metrics: ServiceMetrics, channel: MessageChannel): ChannelMetrics => ({
  attempted: (verdict) => metrics.notificationAttempts.inc({ channel, outcome: verdict }),
  gateLimit: () => {},
  gateForgotten: () => {},
})
