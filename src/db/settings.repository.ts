import { SETTINGS, type SettingName, type Settings } from '../domain/settings'
import { Coalescer } from './coalescer'
import type { Database, Queryable } from './database'
import { statementsOf } from './statements'

export type { Settings }

/**
 * The back-office settings row. Read on every use, so a change reaches every process at once.
 * The reads of concurrent requests share one statement; each such read starts after all of its
 * callers asked, so none of them gets a value older than its request.
 */
export class SettingsRepository {
  private readonly reads: Coalescer<undefined, Settings>

  constructor(private readonly db: Database) {
    this.reads = new Coalescer<undefined, Settings>({
      maxInFlight: 1,
      maxGroup: 1000,
      deadlineMs: db.timeouts.statementMs,
      run: async (calls) => {
        const settings = await this.read()
        return calls.map(() => settings)
      },
      runOne: () => this.read(),
    })
  }

  get(): Promise<Settings> {
    return this.reads.submit(undefined)
  }

  private async read(): Promise<Settings> {
    const [row] = await this.db.query<Settings>(SETTINGS_READ, [], 'settings_read')
    return row as Settings
  }

  async update(tx: Queryable, patch: Partial<Settings>): Promise<Settings> {
    const names = SETTING_NAMES.filter((name) => patch[name] !== undefined)
    const {
      rows: [row],
    } = await tx.query<Settings>(
      updateStatement(names),
      names.map((name) => patch[name]),
    )
    return row as Settings
  }
}

/** Each setting's column: its name in snake case (settings.batch_max_items …). */
const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[]
const COLUMNS = Object.fromEntries(SETTING_NAMES.map((name) => [name, name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)])) as Record<SettingName, string>
const SELECT_LIST = SETTING_NAMES.map((name) => `${COLUMNS[name]} AS "${name}"`).join(', ')

/** Sets the settings named, in order, from $1, $2, … */
function updateStatement(names: SettingName[]): string {
  return `UPDATE settings
             SET ${[...names.map((name, i) => `${COLUMNS[name]} = $${i + 1}`), 'updated_at = now()'].join(', ')}
           WHERE id
       RETURNING ${SELECT_LIST}`
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const SETTINGS_READ = sql('settings_read', `SELECT ${SELECT_LIST} FROM settings WHERE id`)
sql.family('settings_update', () => [{ label: 'every setting at once', text: updateStatement(SETTING_NAMES) }])
