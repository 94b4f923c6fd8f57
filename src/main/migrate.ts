import { loadConfig } from '../config/config'
import { migrate } from '../db/migrator'
import { openDatabase } from '../db/open-database'

/** `npm run migrate`: applies pending migrations (also done at every start). */
const config = loadConfig()
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2, attachToRunning: true })
try {
  const applied = await migrate(db)
  console.log(applied.length === 0 ? 'schema is up to date' : `applied ${applied.map((m) => `${m.version}_${m.name}`).join(', ')}`)
} finally {
  await db.close()
}
