import type { AccountSettingsRepository } from '../db/account-settings.repository'
import type { SettingsRepository } from '../db/settings.repository'
import { effectiveSettings, type AccountSettings } from '../domain/account-settings'
import type { Actor } from '../domain/audit'
import type { AuditTrail } from './audit-trail'

/** An API user's settings as they are answered: the user's choices (null: none) and what holds. */
export interface AccountSettingsView extends AccountSettings {
  effective: ReturnType<typeof effectiveSettings>
}

/** An API user's own settings, beside the back-office defaults they override. */
export class AccountSettingsService {
  constructor(
    private readonly accounts: AccountSettingsRepository,
    private readonly defaults: SettingsRepository,
    private readonly audit: AuditTrail,
  ) {}

  async get(userId: number): Promise<AccountSettingsView> {
    return this.view(await this.accounts.get(userId))
  }

  /** Replaces the user's settings (the HTTP schema has checked them); `actor`: an operator doing it, for the audit trail. */
  async save(userId: number, settings: AccountSettings, actor?: Actor): Promise<AccountSettingsView> {
    const saved = await this.audit.record(actor, { action: 'account_settings.save', target: { kind: 'api_user', id: userId }, detail: { ...settings } }, (tx) =>
      this.accounts.save(tx, userId, settings),
    )
    return this.view(saved)
  }

  private async view(own: AccountSettings): Promise<AccountSettingsView> {
    return { ...own, effective: effectiveSettings(own, await this.defaults.get()) }
  }
}
