import { FEDEX } from '../carriers/fedex/fedex.plugin'
import type { Trigger } from '../domain/notifications'
import type { TrackingPageSource } from '../domain/tracking-page'

/**
 * A FedEx parcel from Memphis to Hamburg as the tracking page reads it when each trigger's message
 * is sent: what the console's previews and the messages' browser test show. `now`: when the
 * message goes.
 */
export function sampleParcel(trigger: Trigger, now: Date): TrackingPageSource {
  const at = (hours: number) => new Date(now.getTime() + hours * 3_600_000)
  const events: TrackingPageSource['events'] = [
    {
      eventTime: at(-30),
      utcOffset: '-06:00',
      description: 'Shipment information sent to FedEx',
      city: 'MEMPHIS',
      state: 'TN',
      country: 'US',
      milestone: 'info_received',
    },
    { eventTime: at(-20), utcOffset: '-06:00', description: 'Picked up', city: 'MEMPHIS', state: 'TN', country: 'US', milestone: 'in_transit' },
  ]
  const last = {
    in_transit: undefined,
    out_for_delivery: { description: 'On FedEx vehicle for delivery', milestone: 'out_for_delivery' as const },
    available_for_pickup: { description: 'Ready for pickup at FedEx OnSite location', milestone: 'available_for_pickup' as const },
    failed_attempt: { description: 'Delivery exception: customer not available or business closed', milestone: 'failed_attempt' as const },
    delivered: { description: 'Delivered', milestone: 'delivered' as const },
    exception: { description: 'Shipment exception: incorrect address', milestone: 'exception' as const },
  }[trigger]
  if (last) events.push({ eventTime: at(-1), utcOffset: '+01:00', city: 'HAMBURG', state: '', country: 'DE', ...last })
  return {
    carrierCode: FEDEX.code,
    trackingNumber: '794612340001',
    externalReferenceNo: 'NK-2026-11-4001',
    milestone: trigger,
    estimatedDeliveryAt: trigger === 'delivered' ? null : at(30),
    prediction: null,
    originAddress: { city: 'MEMPHIS', state: 'TN', country: 'US' },
    destinationAddress: { city: 'HAMBURG', country: 'DE' },
    proofOfDelivery: null,
    updatedAt: now,
    events,
  }
}
