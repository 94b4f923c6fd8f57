import type { ShipmentView } from './fedex.render'
import { withOffset } from './fedex.render'
import type { Place } from './stories'

/** uParcel answers in the format of the project's carrier reference (times at +08:00). */

function location(place: Place) {
  return { address: place.street, pincode: place.postalCode, city: place.city, state: place.state, country: place.country }
}

export function uparcelParcel(trackingNumber: string, view: ShipmentView) {
  const latest = view.stages.at(-1)!
  const events = view.stages.map((s, i) => ({
    time: withOffset(view.times[i]!, 480),
    code: s.uparcel.code,
    status: s.uparcel.status,
    description: s.uparcel.description,
    remark: s.exception,
    location: location(s.place),
  }))
  // "Events may come in any order": odd positions first.
  const shuffled = [...events.filter((_, i) => i % 2 === 1), ...events.filter((_, i) => i % 2 === 0)]
  return {
    tracking_number: trackingNumber,
    order_id: `SO-${trackingNumber.slice(-4)}`,
    status_code: latest.uparcel.code,
    status: latest.uparcel.status,
    estimated_delivery: view.final ? null : withOffset(view.estimatedDelivery, 480),
    pickup: location(view.origin),
    delivery: location(view.destination),
    events: shuffled,
  }
}

export function uparcelEnvelope(status: number, data: unknown, message: string, errors: string[] = []) {
  return { data, result: status === 200 ? 'SUCCESS' : 'FAILED', errors, status, message }
}
