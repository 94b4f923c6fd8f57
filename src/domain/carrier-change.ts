/**
 * The rules of a task's carrier change (docs/api.md, "Changing a task's carrier"): who asked for it,
 * how many a task may have, and which tasks auto-correct tries. Pure.
 */

/** Who moved the task: its user (PATCH, the console) or the auto-correct worker. */
export const CARRIER_CHANGE_REASONS = ['user', 'auto_correct'] as const
export type CarrierChangeReason = (typeof CARRIER_CHANGE_REASONS)[number]

/** At most this many changes a task (as 17TRACK allows): the next is refused. */
export const CARRIER_CHANGE_LIMIT = 5

/** How an auto-correct's try of one candidate carrier went. */
export const CORRECTION_TRY_OUTCOMES = ['found', 'not_found', 'failed', 'unavailable'] as const
export type CorrectionTryOutcome = (typeof CORRECTION_TRY_OUTCOMES)[number]

/**
 * How a task's auto-correct ended: moved to the first carrier that knew the number; none did; the
 * one that did is one the user already tracks the number with (conflict: the task stays); or the
 * task changed meanwhile (an event came, the user moved it).
 */
export const CORRECTION_OUTCOMES = ['moved', 'not_found', 'conflict', 'superseded'] as const
export type CorrectionOutcome = (typeof CORRECTION_OUTCOMES)[number]

export interface CorrectionTry {
  carrierCode: string
  outcome: CorrectionTryOutcome
}

/** A task's change as the full task lists it. */
export interface CarrierChangeJson {
  previousCarrierCode: string
  carrierCode: string
  reason: CarrierChangeReason
  changedAt: string
}

/** A task's auto-correct as the full task shows it; null until one started. */
export interface CarrierCorrectionJson {
  startedAt: string
  /** null while it runs. */
  finishedAt: string | null
  outcome: CorrectionOutcome | null
  /** Each candidate asked, in order, with what it answered. */
  tried: CorrectionTry[]
}

/** The other carriers an auto-correct asks, best first: the available candidates detection found, the task's own left out. */
export function correctionCandidates(current: string, candidates: readonly { carrierCode: string; available: boolean }[]): string[] {
  return [...new Set(candidates.filter((c) => c.available && c.carrierCode !== current).map((c) => c.carrierCode))]
}

/** Whether the tries found a carrier: the first that knew the number. */
export function correctionFound(tried: readonly CorrectionTry[]): string | undefined {
  return tried.find((t) => t.outcome === 'found')?.carrierCode
}
