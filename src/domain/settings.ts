/**
 * The back-office settings: each one's kind (a bounded integer or one of some values), default and
 * meaning, from which the admin schema, its validation messages, the CLI's usage, the console's
 * form and the docs derive. The database row holds the values (one typed column each, CHECKed
 * with the same bounds).
 */
export const SETTINGS = {
  batchMaxItems: { kind: 'integer', min: 1, max: 1000, default: 100, description: 'the most items a batch subscribe may hold' },
  retentionDays: { kind: 'integer', min: 0, max: 3650, default: 0, description: 'inactive tasks are deleted after this many days; 0 keeps them forever' },
  predictionSharing: {
    kind: 'choice',
    values: ['all', 'own'],
    default: 'all',
    description: "whose delivered tasks a user's predicted deliveries rest on: every user's (all) or the user's own (own)",
  },
  consoleSessionHours: { kind: 'integer', min: 1, max: 720, default: 8, description: 'how long a console sign-in lasts, in hours' },
  auditRetentionDays: { kind: 'integer', min: 1, max: 3650, default: 365, description: 'audit-log entries are deleted after this many days' },
  recipientRetentionDays: {
    kind: 'integer',
    min: 1,
    max: 3650,
    default: 30,
    description: "a task's recipient (the shop's customer: address, phone, name) is deleted this many days after the task ends",
  },
  carrierAutoCorrect: {
    kind: 'choice',
    values: ['off', 'on'],
    default: 'off',
    description:
      'whether a stuck pending task is tried with the other carriers its number may belong to, for users who have not chosen (PUT /openapi/settings)',
  },
  carrierAutoCorrectHours: {
    kind: 'integer',
    min: 1,
    max: 8760,
    default: 48,
    description: 'how long a task stays pending and unknown to its carrier before auto-correct tries the others, for users who have not chosen',
  },
} as const satisfies Record<string, SettingSpec>

export type SettingSpec =
  | { kind: 'integer'; min: number; max: number; default: number; description: string }
  | { kind: 'choice'; values: readonly string[]; default: string; description: string }

export type SettingName = keyof typeof SETTINGS

/** Every setting with its spec, in order: what the schema, the form, the CLI and the docs walk. */
export const SETTING_SPECS = Object.entries(SETTINGS) as [SettingName, SettingSpec][]
type ValueOf<S> = S extends { kind: 'choice'; values: readonly (infer V)[] } ? V : number
export type Settings = { [K in SettingName]: ValueOf<(typeof SETTINGS)[K]> }

/** What a setting accepts, as the validation message and the CLI's usage say it. */
export function settingRange(spec: SettingSpec): string {
  return spec.kind === 'integer' ? `${spec.min}..${spec.max}` : spec.values.join('|')
}

/** Whether `value` is one a setting takes. */
export function validSetting(spec: SettingSpec, value: unknown): boolean {
  return spec.kind === 'integer'
    ? Number.isInteger(value) && (value as number) >= spec.min && (value as number) <= spec.max
    : typeof value === 'string' && spec.values.includes(value)
}
