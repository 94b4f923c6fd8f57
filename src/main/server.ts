import { loadConfig } from '../config/config'
import { DataDirLockedError } from '../db/embedded/data-dir-lock'
import { RefreshRepository } from '../db/refresh.repository'
import { WebhookDeliveryRepository } from '../db/webhook-delivery.repository'
import { migrate } from '../db/migrator'
import { Notifier } from '../db/notifier'
import { openDatabase } from '../db/open-database'
import { buildApp } from '../http/app'
import { ServiceMetrics, createRegistry } from '../observability/metrics'
import type { CarrierModes } from '../services/health.service'
import { assertCarrierCredentials, createCarriers } from './carriers'
import { createWorkers } from './workers'
import { createServices } from './container'

/**
 * `npm start`: the service. ROLE=all (default) runs the API and the workers (refresh, webhooks) in one
 * process; ROLE=api and ROLE=worker split them across processes sharing one PostgreSQL (a worker
 * serves only /healthz, /readyz and /metrics). Without DATABASE_URL it runs on the embedded
 * database under DATA_DIR. Migrations are applied before anything starts.
 */
async function main(): Promise<void> {
  const config = loadConfig()
  if (config.role !== 'api') assertCarrierCredentials(config)
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize })
  await migrate(db)

  const registry = createRegistry()
  const refreshRepository = new RefreshRepository(db)
  const deliveryRepository = new WebhookDeliveryRepository(db)
  const metrics = new ServiceMetrics(registry, {
    refreshLagSeconds: () => refreshRepository.refreshLagSeconds(),
    webhookQueueDepth: () => deliveryRepository.queueDepth(),
  })
  const logger = {
    level: config.logLevel,
    // Tokens travel in headers; no header is logged, and these never are.
    redact: ['req.headers.authorization', 'req.headers.cookie'],
  }
  const runsWorker = config.role !== 'api'
  // The app is built first (its logger is the process's logger); /healthz reads the carrier
  // modes from this object once the carriers are up.
  const carrierModes: CarrierModes = {}
  const services = createServices(db, config, carrierModes)
  const app = await buildApp({
    services,
    adminToken: config.role === 'worker' ? undefined : config.adminToken,
    logger,
    registry,
    api: config.role !== 'worker',
    rateLimits: config.rateLimits,
  })
  const carriers = runsWorker ? await createCarriers(config, app.log) : undefined
  if (carriers) Object.assign(carrierModes, carriers.modes)
  // New tasks are refreshed, and due deliveries sent, at once: by this process's workers, and by
  // other processes' workers woken with a NOTIFY (PostgreSQL; at most one per 100 ms a channel).
  const tasksCreated = new Notifier(db, 'tracking_tasks_created')
  const deliveriesDue = new Notifier(db, 'webhook_deliveries_due')
  const workers = carriers
    ? createWorkers(config, { db, carriers, refreshRepository, deliveryRepository, metrics, log: app.log, notifyDeliveriesDue: () => deliveriesDue.notify() })
    : undefined
  services.subscriptions.onTasksCreated = () => {
    workers?.wakeRefresh()
    tasksCreated.notify()
  }
  services.webhooks.onRedelivered = () => {
    workers?.wakeWebhooks()
    deliveriesDue.notify()
  }

  app.log.info(
    { role: config.role, database: db.kind, dataDir: db.kind === 'embedded' ? config.dataDir : undefined, admin: config.adminToken ? 'enabled' : 'disabled', carriers: carriers?.modes },
    'starting tracking subscription service',
  )

  /**
   * Graceful shutdown: stop accepting connections and finish the requests in flight; stop
   * claiming work and finish the rounds and webhook attempts in flight (so their leases are
   * released by completing them); close the database. Past the deadline the process exits
   * anyway, and whatever it still held comes back when its leases run out.
   */
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal, deadlineMs: config.shutdownTimeoutMs }, 'shutting down')
    setTimeout(() => {
      app.log.error('shutdown deadline passed; exiting with work in flight (its leases will expire)')
      process.exit(1)
    }, config.shutdownTimeoutMs).unref()
    await app.close()
    await workers?.stop()
    await carriers?.close()
    await db.close()
    app.log.info('stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))

  await app.listen({ port: config.port, host: config.host })
  await workers?.start()
}

main().catch((error: unknown) => {
  if (error instanceof DataDirLockedError) {
    console.error(`Refusing to start: ${error.message}`)
  } else {
    console.error('Failed to start:', error instanceof Error ? error.message : error)
  }
  process.exit(1)
})
