import { StatusTable, type CodeMeaning } from '../status-table'

/** FedEx status codes by milestone (from FedEx's status-code table; docs/carriers.md). */
export const FEDEX_STATUSES = new StatusTable({
  info_received: ['OC', 'IN'],
  pending: ['OX', 'EP', 'AP', 'DS', 'PD', 'RP', 'RG'],
  in_transit: [
    'PU',
    'PX',
    'PM',
    'IT',
    'IX',
    'OW',
    'AA',
    'AC',
    'AF',
    'AR',
    'AX',
    'DP',
    'EA',
    'EO',
    'FD',
    'LO',
    'OF',
    'PF',
    'PL',
    'SF',
    'TR',
    'CH',
    'SP',
    'AO',
    'AE',
    'RL',
    'RR',
    'RM',
    'RC',
    'CC',
    'CP',
    'AD',
    'ED',
    'DY',
    'DD',
  ],
  out_for_delivery: ['OD'],
  available_for_pickup: ['HL', 'HP'],
  exception: ['DE', 'SE', 'CD', 'DR'],
  delivered: ['DL'],
  returned: ['RS'],
  cancelled: ['CA', 'LP'],
  expired: ['RD'],
})

/**
 * A delivery exception (DE) whose reason says nobody could take the parcel (the customer or the
 * address was not available) is a failed attempt; any other DE is an exception. FedEx's reason
 * codes vary (08 in real answers, 15 in its documentation, for the same text): the text decides.
 */
export const FAILED_ATTEMPT_REASON =
  /(customer|recipient|consignee)[^.]*not (available|in|home)|business (was )?closed|no one (was )?(home|available)|not at home|unable to (locate|access)|incorrect address|address (not|was not|unavailable)/i

/**
 * The meaning of a status: the standard status of FedEx's derived code (its normalised one) or
 * else its raw code, and the milestone of the raw code when it agrees (OD is "out for delivery",
 * its derived IT only "in transit"), refined for a DE by its exception's reason.
 */
export function fedexMeaning(derivedCode: unknown, rawCode: unknown, exceptionReason = ''): CodeMeaning | null {
  const derived = FEDEX_STATUSES.meaning(derivedCode)
  const raw = FEDEX_STATUSES.meaning(rawCode)
  const base = derived ?? raw
  if (!base) return null
  const meaning = raw && raw.status === base.status ? raw : base
  const isDE = [derivedCode, rawCode].some((c) => typeof c === 'string' && c.trim().toUpperCase() === 'DE')
  return isDE && FAILED_ATTEMPT_REASON.test(exceptionReason) ? { status: 'exception', milestone: 'failed_attempt' } : meaning
}
