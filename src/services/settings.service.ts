import { AppError } from '../domain/errors'
import type { Settings, SettingsRepository } from '../db/settings.repository'

export const BATCH_MAX_ITEMS_LIMIT = 1000

/** Back-office settings. Never cached: a change applies to the next request on every process. */
export class SettingsService {
  constructor(private readonly settings: SettingsRepository) {}

  get(): Promise<Settings> {
    return this.settings.get()
  }

  async update(patch: { batchMaxItems?: unknown }): Promise<Settings> {
    const { batchMaxItems } = patch
    if (batchMaxItems !== undefined && (!Number.isInteger(batchMaxItems) || (batchMaxItems as number) < 1 || (batchMaxItems as number) > BATCH_MAX_ITEMS_LIMIT)) {
      throw new AppError('validation_error', `batchMaxItems must be an integer from 1 to ${BATCH_MAX_ITEMS_LIMIT}`, [
        { field: 'batchMaxItems', message: `must be an integer from 1 to ${BATCH_MAX_ITEMS_LIMIT}` },
      ])
    }
    return this.settings.update({ batchMaxItems: batchMaxItems as number | undefined })
  }
}
