import type { AccountSettings } from '../domain/account-settings'
import type { Database, Queryable } from './database'
import { statementsOf } from './statements'

/** An API user's own settings: columns of its row (migration 0027), NULL until chosen. */
export class AccountSettingsRepository {
  constructor(private readonly db: Database) {}

  async get(userId: number): Promise<AccountSettings> {
    const [row] = await this.db.query<AccountSettings>(ACCOUNT_SETTINGS_READ, [userId], 'account_settings_read')
    return row ?? { carrierAutoCorrect: null, carrierAutoCorrectHours: null }
  }

  async save(tx: Queryable, userId: number, settings: AccountSettings): Promise<AccountSettings> {
    const {
      rows: [row],
    } = await tx.query<AccountSettings>(ACCOUNT_SETTINGS_SAVE, [userId, settings.carrierAutoCorrect, settings.carrierAutoCorrectHours])
    return row!
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const COLUMNS = 'carrier_auto_correct AS "carrierAutoCorrect", carrier_auto_correct_hours AS "carrierAutoCorrectHours"'
const ACCOUNT_SETTINGS_READ = sql('account_settings_read', `SELECT ${COLUMNS} FROM api_users WHERE id = $1`)
const ACCOUNT_SETTINGS_SAVE = sql(
  'account_settings_save',
  `UPDATE api_users SET carrier_auto_correct = $2, carrier_auto_correct_hours = $3 WHERE id = $1 RETURNING ${COLUMNS}`,
)
