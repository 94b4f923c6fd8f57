import { MILESTONES, type Milestone } from '../../domain/milestones'
import { StatusTable, type CodeMeaning } from '../status-table'

/**
 * GLS Track And Trace event codes (`events[].code`, PREFIX.SUFFIX: truncated words, not typos)
 * by milestone: every code of test/fixtures/carriers/gls/status-codes.json's `events`, which says
 * where each comes from (GLS publishes the full list only behind a token) and which are
 * judgement calls. A parcel "delivered" to a ParcelShop waits there for its receiver.
 */
export const GLS_STATUSES = new StatusTable({
  info_received: ['INTIAL.PREADVICE', 'INTIAL.E48_DATA'],
  in_transit: ['INTIAL.NORMAL', 'INBOUD.NORMAL', 'OUTBOD.NORMAL', 'CHANGD.MONEWADDR', 'CHANGD.PARCELBOX'],
  out_for_delivery: ['OUTDEL.NORMAL'],
  available_for_pickup: ['DELIVD.PARCELSHOP'],
  failed_attempt: ['NOTDEL.ABSENT'],
  delivered: ['DELIVD.NORMAL', 'DELIVD.DEL_BY_PSAPP'],
  cancelled: ['CANCEL.NORMAL'],
})

/** The parcel's own `status` (all twelve values of GLS's enum): the task's current status. */
export const GLS_PARCEL_STATUSES = new StatusTable({
  info_received: ['PLANNEDPICKUP', 'INPICKUP', 'PREADVICE'],
  in_transit: ['INTRANSIT', 'INWAREHOUSE', 'FINAL'],
  out_for_delivery: ['INDELIVERY'],
  available_for_pickup: ['DELIVEREDPS'],
  failed_attempt: ['NOTDELIVERED'],
  exception: ['NOTPICKEDUP'],
  delivered: ['DELIVERED'],
  cancelled: ['CANCELED'],
})

/** Codes that move no status: an address change done (CHANGD.*), the history closed (FINAL). */
export const GLS_NO_STATUS: ReadonlySet<string> = new Set(['CHANGD.MONEWADDR', 'CHANGD.PARCELBOX', 'FINAL'])

/**
 * English texts that say more than their code (or say something for a code the table does not
 * know): a return shows only in its text. Event descriptions follow Accept-Language; the service
 * asks in English.
 */
const TEXT_PATTERNS: readonly { match: RegExp; milestone: Milestone }[] = [
  { match: /returned to the shipper/i, milestone: 'returned' },
  { match: /has been refused/i, milestone: 'exception' },
  { match: /maximum storage time in the ParcelShop/i, milestone: 'exception' },
  { match: /further address information is needed/i, milestone: 'exception' },
  { match: /could not be delivered/i, milestone: 'failed_attempt' },
]

export type GlsMeaning = CodeMeaning | 'no_change' | null

/**
 * An event's meaning: a return or a problem its text names first (more than its code says), then
 * its code, then any text pattern for a code the table does not know; `no_change` for the codes
 * that move no status.
 */
export function glsEventMeaning(code: string, description: string): GlsMeaning {
  const text = TEXT_PATTERNS.find((p) => p.match.test(description))
  if (text && (text.milestone === 'returned' || text.milestone === 'exception')) return { status: MILESTONES[text.milestone], milestone: text.milestone }
  const upper = code.trim().toUpperCase()
  if (GLS_NO_STATUS.has(upper) || upper.startsWith('CHANGD.')) return 'no_change'
  const known = GLS_STATUSES.meaning(upper)
  if (known) return known
  return text ? { status: MILESTONES[text.milestone], milestone: text.milestone } : null
}

/** The parcel's status: its meaning, `no_change` for FINAL, null for a value GLS has not documented. */
export function glsParcelMeaning(status: string): GlsMeaning {
  const upper = status.trim().toUpperCase()
  if (GLS_NO_STATUS.has(upper)) return 'no_change'
  return GLS_PARCEL_STATUSES.meaning(upper)
}
