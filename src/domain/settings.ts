/**
 * The back-office settings: each one's bounds and default, from which the admin schema, its
 * validation messages, the CLI's usage and the docs derive. The database row holds the values
 * (one typed column each, CHECKed with the same bounds).
 */
export const SETTINGS = {
  batchMaxItems: { min: 1, max: 1000, default: 100, description: 'the most items a batch subscribe may hold' },
  retentionDays: { min: 0, max: 3650, default: 0, description: 'inactive tasks are deleted after this many days; 0 keeps them forever' },
} as const

export type SettingName = keyof typeof SETTINGS
export type Settings = Record<SettingName, number>
