import { Coalescer } from './coalescer'
import type { Database } from './database'

export interface Settings {
  batchMaxItems: number
}

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
    const [row] = await this.db.query<{ batch_max_items: number }>('SELECT batch_max_items FROM settings WHERE id', [], 'settings_read')
    return { batchMaxItems: row!.batch_max_items }
  }

  async update(patch: Partial<Settings>): Promise<Settings> {
    const [row] = await this.db.query<{ batch_max_items: number }>(
      `UPDATE settings
          SET batch_max_items = COALESCE($1, batch_max_items),
              updated_at = now()
        WHERE id
        RETURNING batch_max_items`,
      [patch.batchMaxItems ?? null],
    )
    return { batchMaxItems: row!.batch_max_items }
  }
}
