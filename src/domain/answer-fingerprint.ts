import { createHash } from 'node:crypto'
import type { CarrierSnapshot } from './tracking-update'

/**
 * Raised whenever what a task's state is decided from changes meaning (resolveUpdate's rules, the
 * snapshot's shape): every stored fingerprint then differs, and each task's next fetch is decided
 * afresh instead of taken as unchanged.
 */
const RULES_VERSION = 1

/**
 * A fingerprint of what a carrier said of a number (undefined: it does not know it). A task whose
 * state was decided from an answer with the same fingerprint would be decided again to the same
 * state: its fetch changes nothing but its schedule (the expiry aside, which the caller checks).
 * The mappers build snapshots member by member in a fixed order, so equal answers write equal text.
 */
export function answerFingerprint(snapshot: CarrierSnapshot | undefined): string {
  return createHash('sha256')
    .update(`${RULES_VERSION}\u0000${JSON.stringify(snapshot ?? null)}`)
    .digest('base64url')
}
