/**
 * An API user's own settings (GET/PUT /openapi/settings): each null until the user chooses, when
 * the back-office default (domain/settings.ts) holds.
 */
export interface AccountSettings {
  /** Whether a stuck pending task is tried with the other carriers its number may belong to. */
  carrierAutoCorrect: boolean | null
  /** How long, in hours (a decimal number), a task stays pending and unknown to its carrier first. */
  carrierAutoCorrectHours: number | null
}

/** The bounds of carrierAutoCorrectHours: above 0 (0.01 is 36 s), at most a year. */
export const AUTO_CORRECT_HOURS_MAX = 8760

/** What holds for the user: their choice, else the back-office default. */
export function effectiveSettings(own: AccountSettings, defaults: { carrierAutoCorrect: 'off' | 'on'; carrierAutoCorrectHours: number }) {
  return {
    carrierAutoCorrect: own.carrierAutoCorrect ?? defaults.carrierAutoCorrect === 'on',
    carrierAutoCorrectHours: own.carrierAutoCorrectHours ?? defaults.carrierAutoCorrectHours,
  }
}
