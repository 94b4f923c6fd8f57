import type { Config } from '../config/config'
import type { Database } from '../db/database'
import { RefreshRepository } from '../db/refresh.repository'
import { OutboxRepository } from '../db/outbox.repository'
import { migrate } from '../db/migrator'
import { DELIVERIES_DUE, PUSHES_DUE, Notifier, TASKS_DUE } from '../db/notifier'
import { buildApp } from '../http/app'
import type { Logger } from 'pino'
import { ServiceMetrics, createRegistry } from '../observability/metrics'
import { CARRIER_CODES } from '../carriers/registry'
import { carrierModes, createCarriers, routeDetector } from './carriers'
import { createWorkers } from './workers'
import { createServices } from './container'
import { StartRefused } from './start-refused'
import { WebhookHttp } from '../webhooks/webhook-http'
import { ApiPressure } from '../services/api-pressure'

/**
 * The service on its open database (src/main/server.ts opens it meanwhile): migrations applied,
 * then the workers, the services and the HTTP app, listening; SIGTERM and SIGINT stop it gracefully.
 */
export async function startService(config: Config, log: Logger, db: Database): Promise<void> {
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
  const pushesStored = new Notifier(db, PUSHES_DUE)
  // ROLE=all: the refresh yields to the API while it is saturated (docs/refresh.md, "API first");
  // turned off, no request is counted.
  const pressure = config.role === 'all' && config.apiFirstInFlight > 0 ? new ApiPressure(config.apiFirstInFlight) : undefined
  const workers = carriers
    ? createWorkers(config, { db, carriers, deliveryRepository, metrics, log, notifyDeliveriesDue: () => deliveriesDue.notify(), pressure })
    : undefined
  const detection = routeDetector(config, carriers)
  const webhookHttp = new WebhookHttp({ timeoutMs: config.webhook.timeoutMs, allowPrivateTargets: config.webhook.allowPrivateTargets })
  const services = createServices(db, config, {
    carrierModes: modes,
    carrierCircuits: workers ? () => workers.carrierCircuits() : undefined,
    webhookHosts: workers ? () => workers.webhookHosts() : undefined,
    webhookHttp,
    inboundCounts: { counted: (source, outcome) => metrics.inboundPushes.inc({ source, outcome }) },
    carrierDetector: detection?.detector,
    wakeups: {
      tasksDue() {
        workers?.wakeRefresh()
        tasksCreated.notify()
      },
      deliveriesDue() {
        workers?.wakeWebhooks()
        deliveriesDue.notify()
      },
      pushesDue() {
        workers?.wakeInbound()
        pushesStored.notify()
      },
    },
  })
  const app = await buildApp({
    services,
    adminToken: config.role === 'worker' ? undefined : config.adminToken,
    logger: log,
    registry,
    api: config.role !== 'worker',
    publicBaseUrl: config.publicBaseUrl,
    rateLimits: config.rateLimits,
    pressure,
    mcp: config.mcpEnabled,
  })

  app.log.info(
    {
      role: config.role,
      database: db.kind,
      dataDir: db.kind === 'embedded' ? config.dataDir : undefined,
      admin: config.adminToken ? 'enabled' : 'disabled',
      mcp: config.mcpEnabled ? 'enabled' : 'disabled',
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
    await detection?.close()
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
