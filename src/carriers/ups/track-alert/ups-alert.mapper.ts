import { proofOfDeliveryOf } from '../../../domain/tracking-task'
import { parseCarrierTime, type CarrierEvent, type CarrierSnapshot } from '../../../domain/tracking-update'
import type { CarrierLookup } from '../../carrier'
import { obj, str, type Json } from '../../json'
import { activityEvent, clock, day } from '../ups.mapper'
import { UPS_NO_STATUS, UPS_STATUSES } from '../ups.statuses'

/**
 * UPS Track Alert events → lookups (docs/carriers.md, "UPS Track Alert"). One event a push, and
 * the event is one Track API activity in other words: its `descriptionCode` is the activity's
 * three-digit `statusCode`, so it is mapped by the same table, keyed the same way, and merges with
 * the polled history. What UPS's bodies teach (test/fixtures/carriers/ups/track-alert):
 * `descriptionCode` is a string, a number, or missing; numbers come with a leading space; "" means
 * absent; `gmtOffset` is written "-04.00"; a delivered event carries a years-old scheduled date.
 */

/** Two-character codes seen in UPS's bodies → the three-digit code (when `descriptionCode` is missing). */
const BY_TWO_CHAR_CODE: Readonly<Record<string, string>> = {
  MP: '003',
  OR: '005',
  DP: '005',
  AR: '005',
  OC: '005',
  YP: '071',
  OT: '021',
  OF: '072',
  FS: '011',
  F4: '011',
}

/**
 * The last resort, by event type: a code of the type's usual meaning, for the status only (the
 * event keeps no code). `U` (an update, normally of the scheduled date) moves no status; `D` is
 * delivered only with a delivery date (UPS: "loaded on delivery vehicle, out for delivery, delivered").
 */
function meaningCodeOfType(type: string, delivered: boolean): string | null {
  if (type === 'D') return delivered ? '011' : '072'
  return ({ M: '003', MV: '007', I: '005', X: '013' } as Record<string, string>)[type] ?? null
}

/** `descriptionCode` as the table keys it: "021", 21 (a YAML loader's number) and "21" are all "021". */
function descriptionCodeOf(value: unknown): string | null {
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : str(value)
  return /^\d{1,3}$/.test(text) ? text.padStart(3, '0') : null
}

/** "-04.00" (the push's) or "-04:00" → "-04:00"; anything else → "". */
function offsetOf(value: unknown): string {
  const match = /^([+-]\d{2})[.:](\d{2})$/.exec(str(value))
  return match ? `${match[1]}:${match[2]}` : ''
}

/** A pushed event: its number (trimmed, upper-case) and what it says of it; null when it names no number. */
export function readAlertEvent(body: unknown): { trackingNumber: string; lookup: CarrierLookup } | null {
  const push = obj(body)
  const trackingNumber = str(push.trackingNumber).toUpperCase()
  if (!trackingNumber) return null
  const status = obj(push.activityStatus)
  const type = str(status.type).toUpperCase()
  const twoChar = str(status.code).toUpperCase()
  const statusCode = descriptionCodeOf(status.descriptionCode) ?? BY_TWO_CHAR_CODE[twoChar] ?? ''
  const delivered = day(push.actualDeliveryDate) !== null
  const location = obj(push.activityLocation)
  const activity: Json = {
    date: push.localActivityDate,
    time: push.localActivityTime,
    gmtDate: push.gmtActivityDate,
    gmtTime: push.gmtActivityTime,
    gmtOffset: offsetOf(push.gmtOffset),
    status: { type, code: twoChar, description: status.description, statusCode },
    location: { address: { city: location.city, stateProvince: location.stateProvince, postalCode: location.postalCode, countryCode: location.country } },
  }
  const movesNoStatus = type === 'U' || UPS_NO_STATUS.has(statusCode)
  const meaning = movesNoStatus ? null : UPS_STATUSES.meaning(statusCode || meaningCodeOfType(type, delivered))
  const event = activityEvent(activity)
  const events: CarrierEvent[] = event ? [statusCode ? event : { ...event, status: meaning?.status ?? '', milestone: meaning?.milestone ?? '' }] : []
  const snapshot: CarrierSnapshot = {
    rawStatusCode: statusCode || [type, twoChar].filter(Boolean).join('/'),
    standardStatus: meaning?.status ?? null,
    milestone: meaning?.milestone ?? null,
    carrierStatus: str(status.description),
    // Once delivered the scheduled date is history (UPS's own delivered example carries one from 2019).
    estimatedDeliveryAt: delivered || meaning?.status === 'delivered' ? null : scheduledDelivery(push),
    originAddress: null,
    destinationAddress: null,
    proofOfDelivery:
      meaning?.status === 'delivered' ? proofOfDeliveryOf({ signedBy: str(push.receivedBy), location: '', signatureAvailable: false, documentUrl: '' }) : null,
    events,
  }
  return { trackingNumber, lookup: { found: true, snapshot } }
}

/** scheduledDeliveryDate at deliveryEndTime (else the day's end), at the event's offset when it gave one. */
function scheduledDelivery(push: Json): Date | null {
  const date = day(push.scheduledDeliveryDate)
  if (!date) return null
  return parseCarrierTime(`${date}T${clock(push.deliveryEndTime) ?? '23:59:59'}${offsetOf(push.gmtOffset) || 'Z'}`)
}
