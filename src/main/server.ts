import { loadConfig } from '../config/config'
import { DataDirLockedError } from '../db/embedded/data-dir-lock'
import { migrate } from '../db/migrator'
import { openDatabase } from '../db/open-database'
import { buildApp } from '../http/app'
import { createServices } from './container'

/**
 * `npm start`: the whole service in one process. Without DATABASE_URL it runs on the embedded
 * database under DATA_DIR; migrations are applied before the port opens.
 */
async function main(): Promise<void> {
  const config = loadConfig()
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize })
  await migrate(db)
  const app = await buildApp({
    services: createServices(db, config),
    adminToken: config.adminToken,
    logger: {
      level: config.logLevel,
      // Tokens travel in headers; no header is logged, and these never are.
      redact: ['req.headers.authorization', 'req.headers.cookie'],
    },
  })
  app.log.info(
    { database: db.kind, dataDir: db.kind === 'embedded' ? config.dataDir : undefined, admin: config.adminToken ? 'enabled' : 'disabled' },
    'starting tracking subscription service',
  )

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'shutting down')
    await app.close()
    await db.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))

  await app.listen({ port: config.port, host: config.host })
}

main().catch((error: unknown) => {
  if (error instanceof DataDirLockedError) {
    console.error(`Refusing to start: ${error.message}`)
  } else {
    console.error('Failed to start:', error instanceof Error ? error.message : error)
  }
  process.exit(1)
})
