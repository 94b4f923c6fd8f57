import type { StandardStatus } from '../../domain/statuses'
import { proofOfDeliveryOf, type Address, type ProofOfDelivery } from '../../domain/tracking-task'
import { addressOrNull, eventKey, parseCarrierTime, writtenOffset, type CarrierEvent, type CarrierSnapshot } from '../../domain/tracking-update'
import type { CarrierLookup } from '../carrier'
import { arr, obj, str, type Json } from '../json'
import { fedexMeaning } from './fedex.statuses'

/**
 * FedEx Track API answers → snapshots. Every trap of real responses is handled here: newest-first
 * scans, dates with and without an offset, "" and [""] for missing values, not-found as a
 * per-number error inside HTTP 200, several trackResults for a reused number (the one with the
 * newest scan wins), `output.alerts` as a string or an array. See docs/carriers.md.
 */

export function fedexStandardStatus(...codes: unknown[]): StandardStatus | null {
  return fedexMeaning(codes[0], codes[1])?.status ?? null
}

export function fedexAddress(value: unknown): Address {
  const a = obj(value)
  return {
    country: str(a.countryCode),
    state: str(a.stateOrProvinceCode),
    city: str(a.city),
    postalCode: str(a.postalCode),
    address: arr(a.streetLines).map(str).filter(Boolean).join(', '),
  }
}

function firstAddress(...candidates: unknown[]): Address | null {
  for (const candidate of candidates) {
    const address = addressOrNull(fedexAddress(candidate))
    if (address) return address
  }
  return null
}

function dateOfType(result: Json, type: string): Date | null {
  const entry = arr(result.dateAndTimes)
    .map(obj)
    .find((d) => str(d.type) === type)
  return entry ? parseCarrierTime(entry.dateTime) : null
}

function windowDate(window: unknown): Date | null {
  const w = obj(obj(window).window)
  return parseCarrierTime(w.ends) ?? parseCarrierTime(w.begins)
}

/** ESTIMATED_DELIVERY → estimated window → COMMITMENT → standard transit window. */
function estimatedDelivery(result: Json): Date | null {
  return (
    dateOfType(result, 'ESTIMATED_DELIVERY') ??
    windowDate(result.estimatedDeliveryTimeWindow) ??
    dateOfType(result, 'COMMITMENT') ??
    windowDate(result.standardTransitTimeWindow)
  )
}

function scanEvent(value: unknown): CarrierEvent | null {
  const scan = obj(value)
  const eventTime = parseCarrierTime(scan.date)
  // An event without a readable time cannot be placed in the history; it is skipped.
  if (!eventTime) return null
  const location = fedexAddress(scan.scanLocation)
  const meaning = fedexMeaning(scan.derivedStatusCode, scan.eventType, str(scan.exceptionDescription))
  const event = {
    eventTime,
    eventCode: str(scan.eventType),
    status: meaning?.status ?? '',
    statusInfo: str(scan.derivedStatus),
    description: str(scan.eventDescription),
    exceptionDescription: str(scan.exceptionDescription),
    ...location,
  }
  return { ...event, milestone: meaning?.milestone ?? '', key: eventKey(event), utcOffset: writtenOffset(scan.date) }
}

function newestScanTime(result: Json): number {
  let newest = -Infinity
  for (const scan of arr(result.scanEvents)) newest = Math.max(newest, parseCarrierTime(obj(scan).date)?.getTime() ?? -Infinity)
  return newest
}

function hasTrackingData(result: Json): boolean {
  return Object.keys(obj(result.latestStatusDetail)).length > 0 || arr(result.scanEvents).length > 0
}

export function snapshotFromTrackResult(result: Json): CarrierSnapshot {
  const latest = obj(result.latestStatusDetail)
  const events = arr(result.scanEvents)
    .map(scanEvent)
    .filter((e): e is CarrierEvent => e !== null)
    .sort((a, b) => a.eventTime.getTime() - b.eventTime.getTime())
  // A DE's reason: in latestStatusDetail's ancillary details, or on the newest scan when that is the DE.
  const newest = events.at(-1)
  const reason = [
    ...arr(latest.ancillaryDetails).map((d) => str(obj(d).reasonDescription)),
    newest?.eventCode === 'DE' ? newest.exceptionDescription : '',
  ].join(' ')
  const meaning = fedexMeaning(latest.derivedCode, latest.code, reason)
  return {
    rawStatusCode: str(latest.code) || str(latest.derivedCode),
    standardStatus: meaning?.status ?? null,
    milestone: meaning?.milestone ?? null,
    carrierStatus: str(latest.statusByLocale) || str(latest.description),
    estimatedDeliveryAt: estimatedDelivery(result),
    originAddress: firstAddress(obj(result.shipperInformation).address, obj(obj(result.originLocation).locationContactAndAddress).address),
    destinationAddress: firstAddress(
      obj(result.recipientInformation).address,
      result.lastUpdatedDestinationAddress,
      obj(obj(result.destinationLocation).locationContactAndAddress).address,
    ),
    proofOfDelivery: meaning?.status === 'delivered' ? fedexProofOfDelivery(result) : null,
    events,
  }
}

/**
 * A delivery's proof: deliveryDetails' received-by (or signed-by) name and where it was left
 * (locationDescription, e.g. "Receptionist/Front Desk"); a signature when FedEx lists a signature
 * image. FedEx's tracking answer carries no document link.
 */
function fedexProofOfDelivery(result: Json): ProofOfDelivery | null {
  const details = obj(result.deliveryDetails)
  return proofOfDeliveryOf({
    signedBy: str(details.receivedByName) || str(details.signedByName),
    location: str(details.locationDescription),
    signatureAvailable: arr(result.availableImages).some((image) => /SIGNATURE/.test(str(obj(image).type))),
    documentUrl: '',
  })
}

/**
 * Maps a whole track answer. Numbers absent from it are absent from the map (the refresh treats
 * them as a failed fetch and tries again later).
 */
export function mapTrackResponse(body: unknown): Map<string, CarrierLookup> {
  const lookups = new Map<string, CarrierLookup>()
  for (const complete of arr(obj(obj(body).output).completeTrackResults).map(obj)) {
    const results = arr(complete.trackResults).map(obj)
    const number = str(complete.trackingNumber) || str(obj(results[0]?.trackingNumberInfo).trackingNumber)
    if (!number) continue
    const withData = results.filter(hasTrackingData)
    if (withData.length === 0) {
      const error = results.map((r) => obj(r.error)).find((e) => str(e.code))
      lookups.set(number, { found: false, reason: error ? str(error.code) : 'no tracking data' })
      continue
    }
    // A reused number has several shipments; the one with the newest scan is the live one.
    const live = withData.reduce((best, r) => (newestScanTime(r) > newestScanTime(best) ? r : best))
    lookups.set(number, { found: true, snapshot: snapshotFromTrackResult(live) })
  }
  return lookups
}

/** `output.alerts` is a string in some answers and an array in others. */
export function alertsOf(body: unknown): string[] {
  const alerts = obj(obj(body).output).alerts
  if (typeof alerts === 'string') return alerts ? [alerts] : []
  return arr(alerts).map((a) => (typeof a === 'string' ? a : JSON.stringify(a)))
}
