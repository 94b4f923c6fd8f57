import { invalid, MUST, type FieldError } from '../domain/errors'
import { SETTINGS, validSetting, type SettingName, type Settings, type SettingSpec } from '../domain/settings'
import type { Database } from '../db/database'
import { remakePredictionsAfter } from '../db/prediction-writes'
import type { SettingsRepository } from '../db/settings.repository'
import type { Actor } from '../domain/audit'
import type { AuditTrail } from './audit-trail'

/** Back-office settings. Never cached: a change applies to the next request on every process. */
export class SettingsService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly db: Database,
    private readonly audit: AuditTrail,
  ) {}

  get(): Promise<Settings> {
    return this.settings.get()
  }

  /** Changes the settings given (the HTTP schema and the CLI both come through here). */
  async update(patch: Partial<Record<SettingName, unknown>>, actor?: Actor): Promise<Settings> {
    const problems: FieldError[] = []
    const changes: Partial<Settings> = {}
    for (const [name, value] of Object.entries(patch) as [string, unknown][]) {
      if (!(name in SETTINGS)) {
        problems.push({ field: name, message: MUST.unknownField })
        continue
      }
      if (value === undefined) continue
      const spec: SettingSpec = SETTINGS[name as SettingName]
      if (!validSetting(spec, value))
        problems.push({ field: name, message: spec.kind === 'integer' ? MUST.between(spec.min, spec.max) : MUST.oneOf(spec.values) })
      else Object.assign(changes, { [name]: value })
    }
    const entry = { action: 'settings.update', target: { kind: 'settings' }, detail: { ...changes } } as const
    if (problems.length > 0) return this.audit.record(actor, entry, () => Promise.reject(invalid(problems)))
    const before = changes.predictionSharing === undefined ? undefined : await this.settings.get()
    const after = await this.audit.record(actor, entry, (tx) => this.settings.update(tx, changes))
    // Predictions are kept on the tasks: those made under the other sharing are made again now,
    // in batches after the setting's change (a refresh meanwhile makes its tasks' with the new one).
    if (before !== undefined && before.predictionSharing !== after.predictionSharing) {
      await this.remakeAllPredictions()
    }
    return after
  }

  /** Every prediction made again, a batch a transaction. */
  private async remakeAllPredictions(): Promise<void> {
    for (let last: number | null = 0; last !== null;) {
      const after: number = last
      last = await this.db.transaction((tx) => remakePredictionsAfter(tx, after))
    }
  }
}
