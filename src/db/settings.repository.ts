import type { Database } from './database'

export interface Settings {
  batchMaxItems: number
}

/** The back-office settings row. Read on every use, so a change reaches every process at once. */
export class SettingsRepository {
  constructor(private readonly db: Database) {}

  async get(): Promise<Settings> {
    const [row] = await this.db.query<{ batch_max_items: number }>('SELECT batch_max_items FROM settings WHERE id')
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
