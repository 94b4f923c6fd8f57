import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config/config'
import type { Database } from '../db/database'
import type { RefreshRepository } from '../db/refresh.repository'
import type { WebhookDeliveryRepository } from '../db/webhook-delivery.repository'
import type { ServiceMetrics } from '../observability/metrics'
import { RefreshService } from '../services/refresh.service'
import { WebhookDeliveryService } from '../services/webhook-delivery.service'
import { WebhookHttp } from '../webhooks/webhook-http'
import { WorkLoop } from '../workers/work-loop'
import type { Carriers } from './carriers'

export interface Workers {
  start(): Promise<void>
  /** New tasks were created in this process: refresh them now. */
  wakeRefresh(): void
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
    refreshRepository: RefreshRepository
    deliveryRepository: WebhookDeliveryRepository
    metrics: ServiceMetrics
    log: FastifyBaseLogger
    /** Tells other processes' webhook workers that deliveries are due (a debounced NOTIFY). */
    notifyDeliveriesDue: () => void
  },
): Workers {
  const { db, carriers, refreshRepository, deliveryRepository, metrics, log, notifyDeliveriesDue } = deps
  const webhookHttp = new WebhookHttp({ timeoutMs: config.webhook.timeoutMs, allowPrivateTargets: config.webhook.allowPrivateTargets })
  const delivery = new WebhookDeliveryService(
    deliveryRepository,
    webhookHttp,
    {
      scheduleMs: config.webhook.scheduleMs,
      // Longer than any attempt can take, so only a dead worker loses a lease.
      leaseMs: config.webhook.timeoutMs + 5_000,
      concurrency: config.webhook.concurrency,
      hostConcurrency: config.webhook.hostConcurrency,
    },
    metrics,
    log,
  )
  const webhookLoop = new WorkLoop('webhooks', () => delivery.runRound(), { pollMs: config.webhook.pollMs, listen: (wake) => db.listen('webhook_deliveries_due', wake) }, log)
  delivery.onSlotFree = () => webhookLoop.wake()

  const refresh = new RefreshService(
    refreshRepository,
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
  )
  // In one process a status change wakes the webhook loop directly: the embedded database has no
  // LISTEN, and even with it this is quicker.
  refresh.onNotification = () => {
    webhookLoop.wake()
    notifyDeliveriesDue()
  }
  const refreshLoop = new WorkLoop(
    'refresh',
    async () => (await refresh.runRound()).claimed >= config.refreshClaimLimit,
    { pollMs: config.refreshPollMs, listen: (wake) => db.listen('tracking_tasks_created', wake) },
    log,
  )

  return {
    wakeRefresh: () => refreshLoop.wake(),
    wakeWebhooks: () => webhookLoop.wake(),
    async start() {
      await webhookLoop.start()
      await refreshLoop.start()
    },
    async stop() {
      await Promise.all([refreshLoop.stop(), webhookLoop.stop()])
      await delivery.drain()
      await webhookHttp.close()
    },
  }
}
