import type { Place, Stage } from './stories'

/** FedEx Track API answers as the real API shapes them (see test/fixtures/carriers/fedex). */

/** A local time with its offset, as FedEx writes it: 2024-08-20T12:41:57-04:00. */
export function withOffset(time: Date, offsetMinutes: number): string {
  const local = new Date(time.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19)
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}

function offsetOf(place: Place): number {
  return place.country === 'SG' ? 480 : -300
}

function address(place: Place) {
  // Real answers: streetLines is [""] when there is none, and most addresses hold no street.
  return { streetLines: [place.street], city: place.city, stateOrProvinceCode: place.state, postalCode: place.postalCode, countryCode: place.country, residential: false }
}

function scan(stage: Stage, time: Date) {
  // Pickup scans carry a date without an offset, as some of FedEx's do (read as UTC).
  const date = stage.fedex.eventType === 'PU' ? time.toISOString().slice(0, 19) : withOffset(time, offsetOf(stage.place))
  return {
    date,
    eventType: stage.fedex.eventType,
    eventDescription: stage.fedex.description,
    exceptionCode: stage.exception ? '08' : '',
    exceptionDescription: stage.exception,
    scanLocation: address(stage.place),
    locationType: 'FEDEX_FACILITY',
    derivedStatusCode: stage.fedex.derivedStatusCode,
    derivedStatus: stage.fedex.derivedStatus,
  }
}

export interface ShipmentView {
  stages: Stage[]
  times: Date[]
  final: boolean
  estimatedDelivery: Date
  origin: Place
  destination: Place
}

export function fedexTrackResult(trackingNumber: string, view: ShipmentView) {
  const latest = view.stages.at(-1)!
  const dateAndTimes: { type: string; dateTime: string }[] = [{ type: 'SHIP', dateTime: withOffset(view.times[0]!, -360) }]
  if (!view.final) dateAndTimes.push({ type: 'ESTIMATED_DELIVERY', dateTime: withOffset(view.estimatedDelivery, offsetOf(view.destination)) })
  return {
    trackingNumberInfo: { trackingNumber, trackingNumberUniqueId: `12028~${trackingNumber}~FDEG`, carrierCode: 'FDXG' },
    shipperInformation: { contact: {}, address: { city: view.origin.city, stateOrProvinceCode: view.origin.state, countryCode: view.origin.country, residential: false } },
    recipientInformation: { contact: {}, address: { city: view.destination.city, stateOrProvinceCode: view.destination.state, countryCode: view.destination.country, residential: false } },
    latestStatusDetail: {
      code: latest.fedex.eventType,
      derivedCode: latest.fedex.derivedStatusCode,
      statusByLocale: latest.fedex.statusByLocale,
      description: latest.fedex.description,
      scanLocation: address(latest.place),
    },
    dateAndTimes,
    estimatedDeliveryTimeWindow: { window: {} },
    standardTransitTimeWindow: { window: { ends: withOffset(view.estimatedDelivery, -360) } },
    // Newest first, as FedEx sends them.
    scanEvents: view.stages.map((s, i) => scan(s, view.times[i]!)).reverse(),
  }
}

export function fedexNotFound(trackingNumber: string) {
  return {
    trackingNumberInfo: { trackingNumber, trackingNumberUniqueId: '', carrierCode: '' },
    error: { code: 'TRACKING.TRACKINGNUMBER.NOTFOUND', message: 'Tracking number cannot be found. Please correct the tracking number and try again.' },
  }
}

export function fedexError(code: string, message: string) {
  return { transactionId: crypto.randomUUID(), errors: [{ code, message }] }
}
