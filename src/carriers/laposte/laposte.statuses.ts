import type { Milestone } from '../../domain/milestones'
import { MILESTONES } from '../../domain/milestones'
import { StatusTable, type CodeMeaning } from '../status-table'

/**
 * La Poste Suivi v2 event codes (`shipment.event[].code`) by milestone: every code of
 * test/fixtures/carriers/laposte/status-codes.json, which says where each mapping comes from and
 * which are judgement calls. Mapped by the code, never by its label (the label follows `lang` and
 * differs for one code) nor by a prefix: DI2 "distribué à l'expéditeur" is a return, not a
 * delivery.
 */
export const LAPOSTE_STATUSES = new StatusTable({
  info_received: ['DR1'],
  in_transit: ['PC1', 'PC2', 'ET1', 'ET2', 'ET3', 'ET4', 'DO1', 'DO2', 'EP1', 'PB2'],
  out_for_delivery: ['MD2'],
  available_for_pickup: ['AG1'],
  failed_attempt: ['ND1'],
  exception: ['DO3', 'PB1'],
  delivered: ['DI1'],
  returned: ['RE1', 'DI2'],
})

/**
 * The five fixed steps of `shipment.timeline` (id 1..5, `status` true once reached): the fallback
 * for a newest event whose code the table does not know. They know no exception and no return.
 */
const TIMELINE_STEPS: Readonly<Record<number, Milestone>> = {
  1: 'in_transit',
  2: 'in_transit',
  3: 'in_transit',
  4: 'out_for_delivery',
  5: 'delivered',
}

/** The meaning of the highest timeline step reached; null when none is. */
export function timelineMeaning(reached: readonly number[]): CodeMeaning | null {
  const step = Math.max(0, ...reached.filter((id) => TIMELINE_STEPS[id] !== undefined))
  const milestone = TIMELINE_STEPS[step]
  return milestone ? { status: MILESTONES[milestone], milestone } : null
}
