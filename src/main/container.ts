import type { Config } from '../config/config'
import { ApiUserRepository } from '../db/api-user.repository'
import type { Database } from '../db/database'
import { SecretsRepository } from '../db/secrets.repository'
import { SettingsRepository } from '../db/settings.repository'
import { TaskLifecycleRepository } from '../db/task-lifecycle.repository'
import { TaskRepository } from '../db/task.repository'
import { DeliveryLogRepository } from '../db/delivery-log.repository'
import { WebhookHistoryRepository } from '../db/webhook-history.repository'
import { WebhookEndpointRepository } from '../db/webhook-endpoint.repository'
import type { AppServices } from '../http/app'
import { checkBatchEnvelope, checkSubscription } from '../http/schemas/subscription.schema'
import { ApiUserService } from '../services/api-user.service'
import { AuthService } from '../services/auth.service'
import { CARRIERS, CHANNEL_CODES, ROUTES } from '../carriers/registry'
import { credentialsInUse, pushSettingsInUse } from './carriers'
import type { CarrierDetector } from '../services/route-detection'
import { InboundRepository } from '../db/inbound.repository'
import { InboundService, type InboundCounts, type InboundSource } from '../services/inbound.service'
import type { CircuitView } from '../domain/circuit-breaker'
import { CarrierCatalogService, type CarrierPace } from '../services/carrier-catalog.service'
import { CarrierLoad } from '../services/carrier-load'
import { RefreshRepository } from '../db/refresh.repository'
import { ConsoleRepository } from '../db/console.repository'
import { ConsoleSessionRepository } from '../db/console-session.repository'
import { ConsoleSessionService } from '../services/console-session.service'
import { ConsoleService } from '../services/console.service'
import type { HostView } from '../services/outbox.service'
import { HealthService, type CarrierModes } from '../services/health.service'
import { SettingsService } from '../services/settings.service'
import { SubscriptionService } from '../services/subscription.service'
import { TaskService } from '../services/task.service'
import { CarrierChangeService } from '../services/carrier-change.service'
import { AccountSettingsService } from '../services/account-settings.service'
import { AccountSettingsRepository } from '../db/account-settings.repository'
import { DeliveryLogService } from '../services/delivery-log.service'
import { WebhookEndpointService } from '../services/webhook-endpoint.service'
import { WebhookHistoryService } from '../services/webhook-history.service'
import { WebhookHttp } from '../webhooks/webhook-http'
import { TransitRepository } from '../db/transit.repository'
import { TransitService } from '../services/transit.service'
import { TrackingPageRepository } from '../db/tracking-page.repository'
import { RecipientRepository } from '../db/recipient.repository'
import { SmsCallbackService } from '../services/sms-callback.service'
import { SubscriptionImportService } from '../services/subscription-import.service'
import { builtInTwilio } from './built-in-twilio'
import { NotificationService } from '../services/notification.service'
import { OutboxRepository } from '../db/outbox.repository'
import { TrackingPageService } from '../services/tracking-page.service'
import { AuditRepository } from '../db/audit.repository'
import { OperatorRepository } from '../db/operator.repository'
import { AuditTrail } from '../services/audit-trail'
import { OperatorService } from '../services/operator.service'

/** What the services tell the workers (in this process, and in others through NOTIFY). */
export interface Wakeups {
  /** Tasks were created or made due now: fetch them now. */
  tasksDue(): void
  /** Deliveries were made due: send them now. */
  deliveriesDue(): void
  /** Pushes were stored: apply them now. */
  pushesDue(): void
}

export interface ServiceDeps {
  /** Which carriers the built-in simulator serves (said by /healthz). */
  carrierModes?: CarrierModes
  /** The refresh workers' carrier circuits, said by /readyz. */
  carrierCircuits?: () => Record<string, CircuitView>
  /** The webhook receivers' adaptive limits in this process (the console's deliveries page). */
  webhookHosts?: () => HostView[]
  /** How long the console's overview counts are kept (default 30 s; tests want them fresh). */
  consoleOverviewTtlMs?: number
  wakeups?: Wakeups
  /** The client of the endpoints' test calls (the deliveries' SSRF policy and timeout); its owner closes it. */
  webhookHttp?: WebhookHttp
  /** The token cache's clock (tests move it past the cache's lifetime). */
  tokenCacheClock?: () => number
  /** Counts the gateway's pushes (the metrics of the process). */
  inboundCounts?: InboundCounts
  /** AUTO through a route's detection, when a route runs in this process. */
  carrierDetector?: CarrierDetector
}

/** What the services take from the configuration. */
export type ServiceConfig = Pick<
  Config,
  'tokenCacheTtlMs' | 'carriers' | 'pushes' | 'publicBaseUrl' | 'pollIntervalMs' | 'simulatorPollIntervalMs' | 'webhook'
> &
  Partial<Pick<Config, 'sms' | 'production'>>

/** Each carrier's request budget and poll interval in this process (GET /openapi/carriers, the console), from the configuration. */
export function carrierPaces(config: ServiceConfig, modes: CarrierModes): Record<string, CarrierPace> {
  return Object.fromEntries(
    Object.entries(config.carriers).map(([code, settings]) => [
      code,
      { budget: settings.requestBudget, pollIntervalMs: modes[code] === 'simulator' ? config.simulatorPollIntervalMs : config.pollIntervalMs },
    ]),
  )
}

/**
 * The sources of pushes this service takes: each route that runs here, its pushes verified with its
 * key (the simulator's when it runs on the simulator, which signs its pushes with it).
 */
function inboundSources(config: ServiceConfig, modes: CarrierModes): InboundSource[] {
  const routes = ROUTES.filter((route) => (modes[route.code] ?? 'unavailable') !== 'unavailable').map((route): InboundSource => {
    const credentials = credentialsInUse(config, route)
    return { label: route.label, verify: (raw, headers) => route.verifyPush(raw, headers, credentials) }
  })
  const carriers = CARRIERS.flatMap((carrier): InboundSource[] => {
    const settings = pushSettingsInUse(config, carrier, modes[carrier.code])
    const pushes = carrier.pushes
    if (!settings || !pushes) return []
    return [
      {
        label: pushes.label,
        verify: (_raw, headers) => pushes.verifyPush(headers, settings, Date.now()),
        ...(pushes.grantToken ? { grantToken: (headers, raw) => pushes.grantToken!(headers, raw, settings, Date.now()) } : {}),
      },
    ]
  })
  return [...routes, ...carriers]
}

/** Wires repositories into services: the one place that knows every concrete class. */
export function createServices(db: Database, config: ServiceConfig, deps: ServiceDeps = {}): AppServices {
  const users = new ApiUserRepository(db)
  const secrets = new SecretsRepository(db)
  const settings = new SettingsRepository(db)
  const wakeups = deps.wakeups ?? { tasksDue() {}, deliveriesDue() {}, pushesDue() {} }
  // Without modes (tests), every carrier is served by the simulator.
  const carrierModes = deps.carrierModes ?? Object.fromEntries(CHANNEL_CODES.map((code) => [code, 'simulator' as const]))
  const carriers = new CarrierCatalogService(carrierModes, carrierPaces(config, carrierModes), new CarrierLoad(new RefreshRepository(db)))
  const tasks = new TaskService(
    db,
    new TaskLifecycleRepository(db),
    secrets,
    () => wakeups.tasksDue(),
    () => wakeups.deliveriesDue(),
  )
  const changes = new CarrierChangeService(
    db,
    carriers,
    () => wakeups.tasksDue(),
    () => wakeups.deliveriesDue(),
  )
  const webhooks = new WebhookHistoryService(db, new WebhookHistoryRepository(db), () => wakeups.deliveriesDue())
  const carrierCircuits = deps.carrierCircuits ?? (() => ({}))
  const audit = new AuditTrail(db, new AuditRepository(db))
  const operators = new OperatorRepository(db)
  const deliveryLog = new DeliveryLogService(db, new DeliveryLogRepository(db), secrets, () => wakeups.deliveriesDue())
  const pages = new TrackingPageRepository(db)
  const notifications = new NotificationService(db, new RecipientRepository(db), pages, secrets, audit)
  // Twilio's callbacks are signed with its token; without one, outside production, the built-in fake's.
  const smsToken = async () => config.sms?.authToken ?? (config.production ? undefined : (await builtInTwilio(secrets)).authToken)
  const subscriptions = new SubscriptionService(
    { subscription: checkSubscription, batch: checkBatchEnvelope },
    db,
    new TaskRepository(db),
    settings,
    carriers,
    (tx, userId, items) => notifications.setIn(tx, userId, items),
    () => wakeups.tasksDue(),
    deps.carrierDetector,
  )
  return {
    inbound: new InboundService(new InboundRepository(db), inboundSources(config, carrierModes), () => wakeups.pushesDue(), deps.inboundCounts),
    sms: new SmsCallbackService(new OutboxRepository(db), notifications, smsToken),
    auth: new AuthService(users, config.tokenCacheTtlMs, deps.tokenCacheClock),
    subscriptions,
    imports: new SubscriptionImportService(subscriptions, settings),
    notifications,
    tasks,
    changes,
    accountSettings: new AccountSettingsService(new AccountSettingsRepository(db), settings, audit),
    users: new ApiUserService(users, audit),
    settings: new SettingsService(settings, db, audit),
    audit,
    operators: new OperatorService(operators, audit),
    health: new HealthService(db, carrierModes, carrierCircuits),
    consoleSessions: new ConsoleSessionService(new ConsoleSessionRepository(db), operators, settings, audit),
    console: new ConsoleService(
      new ConsoleRepository(db),
      tasks,
      changes,
      webhooks,
      carriers,
      deliveryLog,
      audit,
      { circuits: carrierCircuits, webhookHosts: deps.webhookHosts ?? (() => []) },
      deps.consoleOverviewTtlMs,
    ),
    carriers,
    webhooks,
    endpoints: new WebhookEndpointService(
      db,
      new WebhookEndpointRepository(db),
      deps.webhookHttp ?? new WebhookHttp({ timeoutMs: config.webhook.timeoutMs, allowPrivateTargets: config.webhook.allowPrivateTargets }),
    ),
    deliveryLog,
    transit: new TransitService(new TransitRepository(db)),
    pages: new TrackingPageService(pages, audit),
  }
}
