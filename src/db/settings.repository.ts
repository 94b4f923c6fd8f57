import { SETTINGS, type SettingName, type Settings } from '../domain/settings'
import { Coalescer } from './coalescer'
import type { Database } from './database'

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
    const [row] = await this.db.query<Record<string, number>>(`SELECT ${SELECT_LIST} FROM settings WHERE id`, [], 'settings_read')
    return row as Settings
  }

  async update(patch: Partial<Settings>): Promise<Settings> {
    const names = SETTING_NAMES.filter((name) => patch[name] !== undefined)
    const [row] = await this.db.query<Record<string, number>>(
      `UPDATE settings
          SET ${[...names.map((name, i) => `${COLUMNS[name]} = $${i + 1}`), 'updated_at = now()'].join(', ')}
        WHERE id
        RETURNING ${SELECT_LIST}`,
      names.map((name) => patch[name]),
    )
    return row as Settings
  }
}

/** Each setting's column: its name in snake case (settings.batch_max_items …). */
const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[]
const COLUMNS = Object.fromEntries(SETTING_NAMES.map((name) => [name, name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)])) as Record<SettingName, string>
const SELECT_LIST = SETTING_NAMES.map((name) => `${COLUMNS[name]} AS "${name}"`).join(', ')
