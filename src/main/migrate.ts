import { loadConfig } from '../config/config'
import { migrate } from '../db/migrator'
import { describeDatabase } from '../db/open-database'
import { openToolDatabase } from './tool-database'

/** `npm run migrate`: applies pending migrations (also done at every start). */
const config = loadConfig()
console.error(`migrate: using ${describeDatabase(config)}`)
const log = (message: string) => console.error(`migrate: ${message}`)
const db = await openToolDatabase(config, { info: log, warn: log })
try {
  const applied = await migrate(db)
  console.log(applied.length === 0 ? 'schema is up to date' : `applied ${applied.map((m) => `${m.version}_${m.name}`).join(', ')}`)
} finally {
  await db.close()
}
