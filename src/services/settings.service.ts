import { invalid, MUST, type FieldError } from '../domain/errors'
import { SETTINGS, validSetting, type SettingName, type Settings, type SettingSpec } from '../domain/settings'
import type { Database } from '../db/database'
import { remakeAllPredictions } from '../db/prediction-writes'
import type { SettingsRepository } from '../db/settings.repository'

/** Back-office settings. Never cached: a change applies to the next request on every process. */
export class SettingsService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly db: Database,
  ) {}

  get(): Promise<Settings> {
    return this.settings.get()
  }

  /** Changes the settings given (the HTTP schema and the CLI both come through here). */
  async update(patch: Partial<Record<SettingName, unknown>>): Promise<Settings> {
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
    if (problems.length > 0) throw invalid(problems)
    const before = changes.predictionSharing === undefined ? undefined : await this.settings.get()
    const after = await this.settings.update(changes)
    // Predictions are kept on the tasks: those made under the other sharing are made again now,
    // in batches after the setting's change (a refresh meanwhile makes its tasks' with the new one).
    if (before !== undefined && before.predictionSharing !== after.predictionSharing) {
      await remakeAllPredictions((work) => this.db.transaction(work))
    }
    return after
  }
}
