import { loadConfig } from '../config/config'
import { EmbeddedUnavailableError } from '../db/embedded/binaries'
import { DataDirInUseError } from '../db/embedded/embedded-server'
import { openDatabase } from '../db/open-database'
import { createLogger } from '../observability/logger'
import { assertCarrierCredentials } from './carriers'
import { StartRefused } from './start-refused'

/**
 * `npm start`: the service. ROLE=all (default) runs the API and the workers (refresh, webhooks) in one
 * process; ROLE=api and ROLE=worker split them across processes sharing one PostgreSQL (a worker
 * serves only /healthz, /readyz and /metrics). Without DATABASE_URL it runs on the embedded
 * database under DATA_DIR. Migrations are applied before anything starts (service-start.ts).
 */
async function main(): Promise<void> {
  const config = loadConfig()
  if (config.role !== 'api') assertCarrierCredentials(config)
  const log = createLogger(config.logLevel)
  // The database opens (the embedded server starts, after initdb on a first start) while the rest
  // of the service's modules load: each was about a third of a start, and the server is a process
  // of its own on the other core.
  const opening = openDatabase({
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
  const loading = import('./service-start')
  // Neither is left behind when the other fails: an opened database (its embedded server) is closed.
  const [opened, loaded] = await Promise.allSettled([opening, loading])
  if (opened.status === 'rejected') throw opened.reason
  if (loaded.status === 'rejected') {
    await opened.value.close()
    throw loaded.reason
  }
  await loaded.value.startService(config, log, opened.value)
}

main().catch((error: unknown) => {
  if (error instanceof DataDirInUseError || error instanceof EmbeddedUnavailableError || error instanceof StartRefused) {
    console.error(`Refusing to start: ${error.message}`)
  } else {
    console.error('Failed to start:', error instanceof Error ? error.message : error)
  }
  process.exit(1)
})
