import type { Database } from '../../src/db/database'
import type { Milestone } from '../../src/domain/milestones'
import type { StandardStatus } from '../../src/domain/statuses'

/**
 * Tasks in each state the tracking page shows, as the refresh leaves them: status and milestone,
 * addresses with street lines and postal codes (which the page must never show), events with
 * local offsets, the carrier's ETA or a prediction, a proof of delivery. Written straight to the
 * rows the page reads; the refresh that writes them in production is tested on its own.
 */
export const PAGE_STATES = [
  'info_received',
  'in_transit',
  'out_for_delivery',
  'failed_attempt',
  'available_for_pickup',
  'delivered',
  'exception',
  'returned',
] as const
export type PageState = (typeof PAGE_STATES)[number]

const STATUS: Record<PageState, StandardStatus> = {
  info_received: 'pending',
  in_transit: 'in_transit',
  out_for_delivery: 'in_transit',
  failed_attempt: 'exception',
  available_for_pickup: 'in_transit',
  delivered: 'delivered',
  exception: 'exception',
  returned: 'returned',
}

/** The events of a parcel from Memphis to Singapore, oldest first, up to a state. */
const STORY: { milestone: Milestone; description: string; city: string; state: string; country: string; offset: string }[] = [
  { milestone: 'info_received', description: 'Shipment information sent to FedEx', city: 'MEMPHIS', state: 'TN', country: 'US', offset: '-06:00' },
  { milestone: 'in_transit', description: 'Picked up', city: 'MEMPHIS', state: 'TN', country: 'US', offset: '-06:00' },
  { milestone: 'in_transit', description: 'Departed FedEx hub', city: 'INDIANAPOLIS', state: 'IN', country: 'US', offset: '-05:00' },
  { milestone: 'in_transit', description: 'International shipment release - Import', city: 'SINGAPORE', state: '', country: 'SG', offset: '+08:00' },
]
const LAST: Record<PageState, { milestone: Milestone; description: string } | undefined> = {
  info_received: undefined,
  in_transit: undefined,
  out_for_delivery: { milestone: 'out_for_delivery', description: 'On FedEx vehicle for delivery' },
  failed_attempt: { milestone: 'failed_attempt', description: 'Delivery attempted - customer not available. A door tag was left.' },
  available_for_pickup: { milestone: 'available_for_pickup', description: 'Ready for pickup at FedEx OnSite - 7-Eleven Tanjong Pagar Plaza' },
  delivered: { milestone: 'delivered', description: 'Delivered - left at front door' },
  exception: { milestone: 'exception', description: 'Shipment exception - incorrect address. Contact FedEx with the correct address.' },
  returned: { milestone: 'returned', description: 'Returned to shipper' },
}

const HOUR = 3_600_000

/** Puts the task into a state: its row and its events (any it had are replaced). */
export async function putInState(db: Database, taskId: number, state: PageState, now = Date.now()): Promise<void> {
  const events = state === 'info_received' ? STORY.slice(0, 1) : [...STORY]
  const last = LAST[state]
  if (last) events.push({ ...last, city: 'SINGAPORE', state: '', country: 'SG', offset: '+08:00' })
  const start = now - events.length * 9 * HOUR
  await db.query('DELETE FROM tracking_events WHERE task_id = $1', [taskId])
  await db.query(
    `INSERT INTO tracking_events (task_id, event_key, event_time, description, city, state, country, postal_code, address, milestone, utc_offset)
     SELECT $1, 'k' || i, to_timestamp(t / 1000.0), d, c, s, co, '38118', '3610 Hacks Cross Rd', m, o
       FROM unnest($2::float8[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS e (t, d, c, s, co, m, o, i)`,
    [
      taskId,
      events.map((_, i) => start + i * 9 * HOUR),
      events.map((e) => e.description),
      events.map((e) => e.city),
      events.map((e) => e.state),
      events.map((e) => e.country),
      events.map((e) => e.milestone),
      events.map((e) => e.offset),
    ],
  )
  const delivered = state === 'delivered'
  const etaKnown = state === 'out_for_delivery' || state === 'failed_attempt'
  const predicted = state === 'in_transit' || state === 'available_for_pickup' || state === 'exception'
  await db.query(
    `UPDATE tracking_tasks
        SET standard_status = $2, milestone = $3,
            origin_address = '{"country":"US","state":"TN","city":"MEMPHIS","postalCode":"38118","address":"3610 Hacks Cross Rd"}',
            destination_address = '{"country":"SG","state":"","city":"SINGAPORE","postalCode":"018956","address":"10 Marina Blvd #22-01"}',
            estimated_delivery_at = $4::timestamptz, predicted_delivery_at = $5::timestamptz, prediction = $6::json,
            proof_of_delivery = $7::json, inactive_since = CASE WHEN $8::boolean THEN now() END, updated_at = now()
      WHERE id = $1`,
    [
      taskId,
      STATUS[state],
      state,
      etaKnown ? new Date(now + 20 * HOUR) : null,
      predicted ? new Date(now + 30 * HOUR) : null,
      predicted
        ? JSON.stringify({
            basis: 'states',
            samples: 212,
            earliest: new Date(now + 20 * HOUR).toISOString(),
            latest: new Date(now + 50 * HOUR).toISOString(),
          })
        : null,
      delivered ? JSON.stringify({ signedBy: 'J. TAN', location: 'Front Door', signatureAvailable: true, documentUrl: 'https://www.fedex.com/pod/123' }) : null,
      delivered || state === 'returned',
    ],
  )
}
