import { MILESTONES, type Milestone } from '../../domain/milestones'
import { StatusTable, type CodeMeaning } from '../status-table'

/**
 * USPS's two-character scan event codes (trackingEvents[].eventCode) by milestone: every code of
 * test/fixtures/carriers/usps/status-codes.json (USPS's full table, Publication 199 Appendix
 * G-4/G-5, is not public; that file says where each mapping comes from and which are judgement
 * calls). An unknown code falls back to the answer's statusCategory for the newest event only.
 */
export const USPS_STATUSES = new StatusTable({
  info_received: ['GX', 'MA', '89', 'GC'],
  in_transit: [
    'TM',
    'PA',
    '83',
    '03',
    'OA',
    'UA',
    'AD',
    '80',
    '81',
    '82',
    '42',
    '10',
    'A1',
    'T1',
    'TL',
    'EF',
    'SF',
    '19',
    '41',
    '07',
    'PC',
    'NP',
    '06',
    '71',
    'DX',
  ],
  out_for_delivery: ['OF'],
  available_for_pickup: ['14', '16'],
  delivered: ['01', '17', '43', 'MR'],
  failed_attempt: ['02', '52', '53', '54', '55', '56', '30', '51', 'H0'],
  exception: ['04', '05', '08', '15', '11'],
  returned: ['09', '21', '22', '23', '24', '25', '26', '27', '28', '29', '31', '44'],
})

/**
 * Events that move no status: a return receipt linked (GC), "delivery status not updated" 14
 * hours after out for delivery (DX). The task keeps the status of the event before.
 */
export const USPS_NO_STATUS: ReadonlySet<string> = new Set(['GC', 'DX'])

/** Texts that say more than their code: USPS reports a return's arrival as a code-01 delivery. */
const TEXT_OVERRIDES: readonly { match: RegExp; milestone: Milestone }[] = [{ match: /^Delivered, To Original Sender/i, milestone: 'returned' }]

/** The shipment's statusCategory, for a newest event whose code the table does not know. */
const CATEGORIES: Readonly<Record<string, Milestone>> = {
  'pre-shipment': 'info_received',
  'usps awaiting item': 'info_received',
  accepted: 'in_transit',
  'in transit': 'in_transit',
  'moving through network': 'in_transit',
  'out for delivery': 'out_for_delivery',
  'available for pickup': 'available_for_pickup',
  'delivery attempt': 'failed_attempt',
  'delivery attempt: action needed': 'failed_attempt',
  alert: 'exception',
  delivered: 'delivered',
}

const RETURNED: CodeMeaning = { status: 'returned', milestone: 'returned' }

/** What an event means: its code's meaning, unless its text overrides it ("Delivered, To Original Sender" is a return). */
export function uspsMeaning(code: string, text: string): CodeMeaning | null {
  const meaning = USPS_STATUSES.meaning(code)
  if (meaning && TEXT_OVERRIDES.some((o) => o.match.test(text))) return RETURNED
  return meaning
}

/** The meaning of a statusCategory (any case), with the same text override on the shipment's status. */
export function uspsCategoryMeaning(category: string, status: string): CodeMeaning | null {
  const milestone = CATEGORIES[category.trim().toLowerCase()]
  if (!milestone) return null
  if (TEXT_OVERRIDES.some((o) => o.match.test(status))) return RETURNED
  return { status: MILESTONES[milestone], milestone }
}
