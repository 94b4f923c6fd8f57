import type { Config } from '../config/config'
import type { Database } from '../db/database'
import type { EmbeddedLog } from '../db/embedded/embedded-server'
import { openDatabase } from '../db/open-database'

/**
 * The database a command-line tool works on (the admin CLI, `npm run migrate`): the configured
 * one, or the embedded server running on DATA_DIR, started for the tool's work when none runs.
 */
export function openToolDatabase(config: Config, log: EmbeddedLog): Promise<Database> {
  return openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
    publicBaseUrl: config.publicBaseUrl,
    role: 'tool',
    log,
  })
}
