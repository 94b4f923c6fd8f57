import { loadConfig } from '../config/config'
import { EmbeddedUnavailableError } from '../db/embedded/binaries'
import { DataDirInUseError } from '../db/embedded/embedded-server'
import { RefreshRepository } from '../db/refresh.repository'
import { OutboxRepository } from '../db/outbox.repository'
import { migrate } from '../db/migrator'
import { DELIVERIES_DUE, Notifier, TASKS_DUE } from '../db/notifier'
import { openDatabase } from '../db/open-database'
import { buildApp } from '../http/app'
import { createLogger } from '../observability/logger'
import { ServiceMetrics, createRegistry } from '../observability/metrics'
import { CARRIER_CODES } from '../carriers/registry'
import { assertCarrierCredentials, carrierModes, createCarriers } from './carriers'
import { createWorkers } from './workers'
import { createServices } from './container'
import { WebhookHttp } from '../webhooks/webhook-http'

/**
 * `npm start`: the service. ROLE=all (default) runs the API and the workers (refresh, webhooks) in one
 * process; ROLE=api and ROLE=worker split them across processes sharing one PostgreSQL (a worker
 * serves only /healthz, /readyz and /metrics). Without DATABASE_URL it runs on the embedded
 * database under DATA_DIR. Migrations are applied before anything starts.
 */
async function main(): Promise<void> {
  const config = loadConfig()
  if (config.role !== 'api') assertCarrierCredentials(config)
  const log = createLogger(config.logLevel)
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    timeouts: config.databaseTimeouts,
    publicBaseUrl: config.publicBaseUrl,
    role: 'service',
    log: { info: (message) => log.info(message), warn: (message) => log.warn(message) },
    onLost: (error) => {
      log.fatal({ err: error }, 'lost the embedded database to another service; exiting')
      process.exit(1)
    },
  })
  await migrate(db)

  const registry = createRegistry()
  const refreshRepository = new RefreshRepository(db)
  const deliveryRepository = new OutboxRepository(db)
  const metrics = new ServiceMetrics(registry, {
    refreshLagSeconds: () => refreshRepository.refreshLagSeconds(CARRIER_CODES),
    webhookQueueDepth: () => deliveryRepository.queueDepth('webhook'),
  })
  // Carriers and workers first: the services wake the workers, and /healthz names the carriers' modes.
  const modes = carrierModes(config)
  const carriers = config.role !== 'api' ? await createCarriers(config, log) : undefined
  // New tasks are refreshed, and due deliveries sent, at once: by this process's workers, and by
  // other processes' workers woken with a NOTIFY (at most one per 100 ms a channel).
  const tasksCreated = new Notifier(db, TASKS_DUE)
  const deliveriesDue = new Notifier(db, DELIVERIES_DUE)
  const workers = carriers
    ? createWorkers(config, { db, carriers, deliveryRepository, metrics, log, notifyDeliveriesDue: () => deliveriesDue.notify() })
    : undefined
  const webhookHttp = new WebhookHttp({ timeoutMs: config.webhook.timeoutMs, allowPrivateTargets: config.webhook.allowPrivateTargets })
  const services = createServices(db, config, {
    carrierModes: modes,
    carrierCircuits: workers ? () => workers.carrierCircuits() : undefined,
    webhookHosts: workers ? () => workers.webhookHosts() : undefined,
    webhookHttp,
    wakeups: {
      tasksDue() {
        workers?.wakeRefresh()
        tasksCreated.notify()
      },
      deliveriesDue() {
        workers?.wakeWebhooks()
        deliveriesDue.notify()
      },
    },
  })
  const app = await buildApp({
    services,
    adminToken: config.role === 'worker' ? undefined : config.adminToken,
    logger: log,
    registry,
    api: config.role !== 'worker',
    rateLimits: config.rateLimits,
  })

  app.log.info(
    {
      role: config.role,
      database: db.kind,
      dataDir: db.kind === 'embedded' ? config.dataDir : undefined,
      admin: config.adminToken ? 'enabled' : 'disabled',
      carriers: carriers ? modes : undefined,
    },
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
    await closeAll()
    app.log.info('stopped')
    process.exit(0)
  }
  const closeAll = async () => {
    await app.close()
    await workers?.stop()
    await carriers?.close()
    await webhookHttp.close()
    await db.close()
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))

  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    // Nothing started yet but the database (and its embedded server): stopped before exiting.
    await closeAll()
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new StartRefused(`port ${config.port} on ${config.host} is already in use (another service?); set PORT to a free port`)
    throw error
  }
  await workers?.start()
  if (config.adminToken && config.role !== 'worker') {
    const address = app.server.address()
    const port = typeof address === 'object' && address ? address.port : config.port
    const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host
    app.log.info(
      { console: `http://${host}:${port}/console` },
      `operator console: http://${host}:${port}/console (sign in as an operator, or with ADMIN_TOKEN)`,
    )
  } else if (config.role !== 'worker') {
    // A first `npm start` has no API user yet: say how to make one.
    app.log.info(
      'ADMIN_TOKEN is not set, so the admin API and the console are off: create an API user with `npm run admin -- create-user <name>`, or set ADMIN_TOKEN',
    )
  }
}

/** A start that cannot go on, for a reason the operator can fix: said in one line. */
class StartRefused extends Error {}

main().catch((error: unknown) => {
  if (error instanceof DataDirInUseError || error instanceof EmbeddedUnavailableError || error instanceof StartRefused) {
    console.error(`Refusing to start: ${error.message}`)
  } else {
    console.error('Failed to start:', error instanceof Error ? error.message : error)
  }
  process.exit(1)
})
