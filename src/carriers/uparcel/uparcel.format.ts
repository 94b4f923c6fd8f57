import type { Address } from '../../domain/tracking-task'
import { UPARCEL_STATUSES } from './uparcel.statuses'
import { addressOrNull, eventKey, parseCarrierTime, writtenOffset, type CarrierEvent, type CarrierSnapshot } from '../../domain/tracking-update'
import type { CarrierLookup } from '../carrier'
import { arr, obj, str, type Json } from '../json'

/**
 * uParcel's tracking format. The auth call and the envelope are public; the tracking answer is
 * not, so everything in this file marked ASSUMED is the format fixed by the project's carrier
 * reference until uParcel confirms it. Replace it here and nowhere else.
 */

/** ASSUMED: at most 50 numbers per tracking request. */
export const UPARCEL_MAX_BATCH = 50

/** ASSUMED: addresses as {address, pincode, city, state, country}. */
export function uparcelAddress(value: unknown): Address {
  const a = obj(value)
  return { country: str(a.country), state: str(a.state), city: str(a.city), postalCode: str(a.pincode), address: str(a.address) }
}

/** ASSUMED: events {time (+08:00), code, status, description, remark, location}, in any order. */
function uparcelEvent(value: unknown): CarrierEvent | null {
  const e = obj(value)
  const eventTime = parseCarrierTime(e.time)
  if (!eventTime) return null
  const meaning = UPARCEL_STATUSES.meaning(e.code)
  const event = {
    eventTime,
    eventCode: str(e.code),
    status: meaning?.status ?? '',
    statusInfo: str(e.status),
    description: str(e.description),
    exceptionDescription: str(e.remark),
    ...uparcelAddress(e.location),
  }
  return { ...event, milestone: meaning?.milestone ?? '', key: eventKey(event), utcOffset: writtenOffset(e.time) }
}

function snapshotOf(parcel: Json): CarrierSnapshot {
  const meaning = UPARCEL_STATUSES.meaning(parcel.status_code)
  return {
    rawStatusCode: str(parcel.status_code),
    standardStatus: meaning?.status ?? null,
    milestone: meaning?.milestone ?? null,
    carrierStatus: str(parcel.status),
    estimatedDeliveryAt: parseCarrierTime(parcel.estimated_delivery),
    originAddress: addressOrNull(uparcelAddress(parcel.pickup)),
    destinationAddress: addressOrNull(uparcelAddress(parcel.delivery)),
    // uParcel's format names no proof of delivery.
    proofOfDelivery: null,
    events: arr(parcel.events)
      .map(uparcelEvent)
      .filter((e): e is CarrierEvent => e !== null)
      .sort((a, b) => a.eventTime.getTime() - b.eventTime.getTime()),
  }
}

/** True when the envelope says SUCCESS and carries data.parcels. */
export function isTrackingAnswer(body: unknown): boolean {
  const b = obj(body)
  return b.result === 'SUCCESS' && Array.isArray(obj(b.data).parcels)
}

/** ASSUMED: {data: {parcels: [...], not_found: [...]}}. Numbers in neither list are absent. */
export function mapTrackingAnswer(body: unknown): Map<string, CarrierLookup> {
  const data = obj(obj(body).data)
  const lookups = new Map<string, CarrierLookup>()
  for (const number of arr(data.not_found).map(str).filter(Boolean)) lookups.set(number, { found: false, reason: 'not_found' })
  for (const parcel of arr(data.parcels).map(obj)) {
    const number = str(parcel.tracking_number)
    if (number) lookups.set(number, { found: true, snapshot: snapshotOf(parcel) })
  }
  return lookups
}
