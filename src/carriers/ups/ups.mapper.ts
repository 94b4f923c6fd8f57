import { proofOfDeliveryOf, type Address, type ProofOfDelivery } from '../../domain/tracking-task'
import { addressOrNull, parseCarrierTime, type CarrierEvent, type CarrierSnapshot } from '../../domain/tracking-update'
import type { CarrierLookup } from '../carrier'
import { arr, obj, str, type Json } from '../json'
import { UPS_CODE_TEXT, UPS_NO_STATUS, UPS_STATUSES } from './ups.statuses'

/**
 * UPS Track API v1 answers → snapshots (docs/carriers.md, "UPS"). What real answers teach: the
 * status comes from each activity's three-digit `status.statusCode` (never from `type`, never
 * from the two-letter `code`); the current status is the first activity in UPS's order, not the
 * latest by time; `gmtDate` + `gmtTime` are UTC, `gmtTime` written "20:04:35" or "74700"; texts
 * carry trailing spaces; not found is HTTP 200 with warning TW0001 and no `package`.
 */

/** Warnings and errors that mean "this number has no tracking data", now or ever. */
const NOT_FOUND_CODES = new Set(['TW0001', 'TV1002'])

export function upsAddress(value: unknown): Address {
  const a = obj(value)
  return {
    country: str(a.countryCode) || str(a.country),
    state: str(a.stateProvince),
    city: str(a.city),
    postalCode: str(a.postalCode),
    address: [a.addressLine1, a.addressLine2, a.addressLine3].map(str).filter(Boolean).join(', '),
  }
}

/** "20:04:35", "200435" or "74700" (HHMMSS with its leading zero dropped) → "HH:MM:SS". */
export function clock(value: unknown): string | null {
  const text = str(value)
  const colon = /^(\d{1,2}):(\d{2}):(\d{2})$/.exec(text)
  if (colon) return `${colon[1]!.padStart(2, '0')}:${colon[2]}:${colon[3]}`
  if (!/^\d{5,6}$/.test(text)) return null
  const six = text.padStart(6, '0')
  return `${six.slice(0, 2)}:${six.slice(2, 4)}:${six.slice(4)}`
}

/** "20240202" → "2024-02-02". */
export function day(value: unknown): string | null {
  const text = str(value)
  return /^\d{8}$/.test(text) ? `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6)}` : null
}

/** "-08:00" → itself; anything else → null. */
function offset(value: unknown): string | null {
  const text = str(value)
  return /^[+-]\d{2}:\d{2}$/.test(text) ? text : null
}

/**
 * An activity's time: gmtDate + gmtTime (UTC) when given; else date + time at gmtOffset; else
 * date + time read as UTC (the Postman example carries no offset at all: docs/carriers.md).
 */
function activityTime(activity: Json): Date | null {
  const gmtDay = day(activity.gmtDate)
  const gmtClock = clock(activity.gmtTime)
  if (gmtDay && gmtClock) return parseCarrierTime(`${gmtDay}T${gmtClock}Z`)
  const localDay = day(activity.date)
  const localClock = clock(activity.time)
  if (!localDay || !localClock) return null
  return parseCarrierTime(`${localDay}T${localClock}${offset(activity.gmtOffset) ?? 'Z'}`)
}

function statusCodeOf(activity: Json): string {
  return str(obj(activity.status).statusCode)
}

/**
 * A UPS scan's identity: its UTC time and three-digit code. A Track API activity and the Track
 * Alert push of the same scan agree on these and on nothing else reliably (the push's texts are
 * the code table's, the Track API's its own; the push has no postal code before delivery), so
 * polled and pushed histories merge.
 */
export function upsEventKey(eventTime: Date, statusCode: string): string {
  return `ups:${eventTime.getTime()}:${statusCode}`
}

/** A Track API activity (or a push written as one) → an event; null without a readable time. */
export function activityEvent(activity: Json): CarrierEvent | null {
  const eventTime = activityTime(activity)
  // An activity without a readable time cannot be placed in the history; it is skipped.
  if (!eventTime) return null
  const code = statusCodeOf(activity)
  const meaning = UPS_NO_STATUS.has(code) ? null : UPS_STATUSES.meaning(code)
  const event = {
    eventTime,
    eventCode: code,
    status: meaning?.status ?? '',
    statusInfo: UPS_CODE_TEXT[code] ?? '',
    description: str(obj(activity.status).description),
    exceptionDescription: '',
    ...upsAddress(obj(activity.location).address),
  }
  return { ...event, milestone: meaning?.milestone ?? '', key: upsEventKey(eventTime, code), utcOffset: offset(activity.gmtOffset) }
}

/**
 * The ETA: RDD (rescheduled) else SDD (scheduled), at deliveryTime.endTime when given, else at the
 * end of that day, in the newest activity's gmtOffset (UTC without one). null: keep the task's.
 */
function estimatedDelivery(pkg: Json, activities: Json[]): Date | null {
  const dates = arr(pkg.deliveryDate).map(obj)
  const date = day((dates.find((d) => str(d.type) === 'RDD') ?? dates.find((d) => str(d.type) === 'SDD'))?.date)
  if (!date) return null
  const time = clock(obj(pkg.deliveryTime).endTime) ?? '23:59:59'
  const zone = activities.map((a) => offset(a.gmtOffset)).find(Boolean) ?? 'Z'
  return parseCarrierTime(`${date}T${time}${zone}`)
}

function addressOfType(pkg: Json, type: string): Address | null {
  const entry = arr(pkg.packageAddress)
    .map(obj)
    .find((a) => str(a.type) === type)
  return entry ? addressOrNull(upsAddress(entry.address)) : null
}

/**
 * A delivery's proof: deliveryInformation's receivedBy and location ("Front Door"), a signature when
 * UPS sent its image (the service asks for none: returnSignature=false), no document link
 * (returnPOD's document is a large base64 body, not asked for).
 */
function upsProofOfDelivery(pkg: Json): ProofOfDelivery | null {
  const info = obj(pkg.deliveryInformation)
  return proofOfDeliveryOf({
    signedBy: str(info.receivedBy),
    location: str(info.location),
    signatureAvailable: str(obj(info.signature).image) !== '',
    documentUrl: '',
  })
}

export function snapshotFromPackage(pkg: Json): CarrierSnapshot {
  const activities = arr(pkg.activity).map(obj)
  const events = activities
    .map(activityEvent)
    .filter((e): e is CarrierEvent => e !== null)
    .sort((a, b) => a.eventTime.getTime() - b.eventTime.getTime())
  // UPS lists activities newest first but not strictly by time: its first one is the current state.
  const current = activities.find((a) => statusCodeOf(a) && !UPS_NO_STATUS.has(statusCodeOf(a)))
  const meaning = current ? UPS_STATUSES.meaning(statusCodeOf(current)) : null
  return {
    rawStatusCode: current ? statusCodeOf(current) : '',
    standardStatus: meaning?.status ?? null,
    milestone: meaning?.milestone ?? null,
    carrierStatus: current ? str(obj(current.status).description) : '',
    estimatedDeliveryAt: estimatedDelivery(pkg, activities),
    originAddress: addressOfType(pkg, 'ORIGIN'),
    destinationAddress: addressOfType(pkg, 'DESTINATION'),
    proofOfDelivery: meaning?.status === 'delivered' ? upsProofOfDelivery(pkg) : null,
    events,
  }
}

/**
 * The lookup of one number from a track answer (HTTP 200): its package, or not found when UPS
 * warns TW0001 and sends none. undefined: the answer says nothing usable about the number.
 */
export function lookupFromAnswer(trackingNumber: string, body: unknown): CarrierLookup | undefined {
  const shipments = arr(obj(obj(body).trackResponse).shipment).map(obj)
  const packages = shipments.flatMap((s) => arr(s.package).map(obj))
  // A shipment may hold several packages: the number asked for is the one whose number matches.
  const pkg = packages.find((p) => str(p.trackingNumber).toUpperCase() === trackingNumber.toUpperCase()) ?? (packages.length === 1 ? packages[0] : undefined)
  if (pkg) return { found: true, snapshot: snapshotFromPackage(pkg) }
  const warning = shipments.flatMap((s) => arr(s.warnings).map(obj)).find((w) => NOT_FOUND_CODES.has(str(w.code)))
  return warning ? { found: false, reason: str(warning.code) } : undefined
}

/** The error codes of a UPS error body ({response: {errors: [{code, message}]}}). */
export function errorCodesOf(body: unknown): string[] {
  return arr(obj(obj(body).response).errors).map((e) => str(obj(e).code))
}

/** True when an error answer says the number itself can never be tracked (TV1002). */
export function isInvalidNumberError(body: unknown): boolean {
  return errorCodesOf(body).some((code) => NOT_FOUND_CODES.has(code))
}
