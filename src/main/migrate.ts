import { loadConfig } from '../config/config'
import { migrate } from '../db/migrator'
import { describeDatabase, openDatabase } from '../db/open-database'

/** `npm run migrate`: applies pending migrations (also done at every start). */
const config = loadConfig()
console.error(`migrate: using ${describeDatabase(config)}`)
const log = (message: string) => console.error(`migrate: ${message}`)
const db = await openDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  poolSize: 2,
  publicBaseUrl: config.publicBaseUrl,
  role: 'tool',
  log: { info: log, warn: log },
})
try {
  const applied = await migrate(db)
  console.log(applied.length === 0 ? 'schema is up to date' : `applied ${applied.map((m) => `${m.version}_${m.name}`).join(', ')}`)
} finally {
  await db.close()
}
