import { addressOrNull, eventKey, parseCarrierTime, writtenOffset, type CarrierEvent, type CarrierSnapshot } from '../../domain/tracking-update'
import type { Address } from '../../domain/tracking-task'
import { numberKey, oldestFirst } from '../answers'
import type { CarrierLookup } from '../carrier'
import { arr, obj, str, type Json } from '../json'
import { eventMeaning, latestStatusMeaning } from './seventeentrack.statuses'

/**
 * 17TRACK's `track_info` (the same in a `gettrackinfo` answer and in a push) → a snapshot
 * (docs/carriers.md, "17TRACK"). What its kit teaches: the history lives per provider (origin
 * and last-mile carriers each list their own, newest first), so every provider's events are merged
 * and put in time order; an event's instant is `time_utc` and its local time `time_iso` as written
 * (17TRACK's offsets are its own and are not checked); the current status is
 * `latest_status.sub_status`, never the newest event's `stage`.
 */

/** A 17TRACK record: the number under one carrier key (the same number under two keys is two records). */
export function recordKey(carrierKey: number, trackingNumber: string): string {
  return `${carrierKey}:${numberKey(trackingNumber)}`
}

/** The carrier key and number of a record key. */
export function parseRecordKey(record: string): { carrierKey: number; trackingNumber: string } {
  const at = record.indexOf(':')
  return { carrierKey: Number(record.slice(0, at)), trackingNumber: record.slice(at + 1) }
}

function addressOf(raw: unknown): Address {
  const a = obj(raw)
  return { country: str(a.country).toUpperCase(), state: str(a.state), city: str(a.city), postalCode: str(a.postal_code), address: str(a.street) }
}

function readEvent(raw: Json): CarrierEvent | null {
  const eventTime = parseCarrierTime(str(raw.time_utc)) ?? parseCarrierTime(str(raw.time_iso))
  // An event without a readable time cannot be placed in the history; it is skipped.
  if (!eventTime) return null
  const subStatus = str(raw.sub_status)
  const stage = str(raw.stage)
  const meaning = eventMeaning(subStatus, stage)
  const address = addressOf(raw.address)
  const hasPlace = address.country || address.state || address.city || address.postalCode
  const event = {
    eventTime,
    eventCode: subStatus || stage,
    status: meaning?.status ?? '',
    statusInfo: '',
    description: str(raw.description),
    exceptionDescription: '',
    country: address.country,
    state: address.state,
    city: address.city,
    postalCode: address.postalCode,
    // Without a structured address, the place as 17TRACK writes it.
    address: hasPlace ? address.address : str(raw.location),
  }
  return { ...event, milestone: meaning?.milestone ?? '', key: eventKey(event), utcOffset: writtenOffset(raw.time_iso) }
}

/** Every provider's events, oldest first, each once (the same scan listed twice is one event). */
function historyOf(trackInfo: Json): CarrierEvent[] {
  const events = new Map<string, CarrierEvent>()
  for (const provider of arr(obj(trackInfo.tracking).providers).map(obj)) {
    for (const raw of arr(provider.events).map(obj)) {
      const event = readEvent(raw)
      if (event && !events.has(event.key)) events.set(event.key, event)
    }
  }
  return oldestFirst([...events.values()].reverse(), (e) => e.eventTime.getTime())
}

export function snapshotFromTrackInfo(trackInfo: Json): CarrierSnapshot {
  const latest = obj(trackInfo.latest_status)
  const status = str(latest.status)
  const subStatus = str(latest.sub_status)
  const current = latestStatusMeaning(status, subStatus)
  const events = historyOf(trackInfo)
  const shipping = obj(trackInfo.shipping_info)
  const eta = obj(obj(trackInfo.time_metrics).estimated_delivery_date)
  const terminal = current?.status === 'delivered' || current?.status === 'returned' || current?.status === 'cancelled'
  return {
    rawStatusCode: subStatus || status,
    standardStatus: current?.status ?? null,
    milestone: current?.milestone ?? null,
    carrierStatus: str(obj(trackInfo.latest_event).description) || str(latest.sub_status_descr),
    // The end of 17TRACK's window: the parcel is due by then. None once the parcel's journey ended.
    estimatedDeliveryAt: terminal ? null : (parseCarrierTime(str(eta.to)) ?? parseCarrierTime(str(eta.from))),
    originAddress: addressOrNull(addressOf(shipping.shipper_address)),
    destinationAddress: addressOrNull(addressOf(shipping.recipient_address)),
    proofOfDelivery: null,
    events,
  }
}

/** A record's lookup: NotFound with no event is "not found" (the task stays pending), anything else a snapshot. */
export function lookupOfTrackInfo(trackInfo: Json): CarrierLookup {
  const latest = obj(trackInfo.latest_status)
  const snapshot = snapshotFromTrackInfo(trackInfo)
  if (str(latest.status) === 'NotFound' && snapshot.events.length === 0) return { found: false, reason: `17TRACK: ${str(latest.sub_status) || 'NotFound'}` }
  return { found: true, snapshot }
}

/** Rejections of `gettrackinfo` that mean "nothing yet" for a record, by 17TRACK's code. */
const NOTHING_YET: Readonly<Record<number, string>> = {
  [-18019902]: 'not registered at 17TRACK yet',
  [-18019909]: 'registered at 17TRACK, no tracking information yet',
}

/**
 * A `gettrackinfo` answer's `data` → the lookups of the records asked (`recordKey`). An accepted
 * element is matched by number and carrier key; a rejection by number (a rejection names no
 * carrier: it answers every record of that number asked). A record left out is asked again.
 */
export function lookupsFromTrackInfo(asked: readonly string[], data: Json): Map<string, CarrierLookup> {
  const lookups = new Map<string, CarrierLookup>()
  const wanted = new Set(asked)
  for (const element of arr(data.accepted).map(obj)) {
    const record = recordKey(Number(element.carrier), str(element.number))
    if (wanted.has(record) && !lookups.has(record)) lookups.set(record, lookupOfTrackInfo(obj(element.track_info)))
  }
  for (const element of arr(data.rejected).map(obj)) {
    const number = numberKey(str(element.number))
    const code = Number(obj(element.error).code)
    const reason = NOTHING_YET[code] ?? `17TRACK refused the number (${code}: ${str(obj(element.error).message)})`
    for (const record of asked) {
      if (parseRecordKey(record).trackingNumber === number && !lookups.has(record)) lookups.set(record, { found: false, reason })
    }
  }
  return lookups
}

/** A push's record and what it says, or null when it is not a TRACKING_UPDATED of a number. */
export interface SeventeenTrackPush {
  event: string
  trackingNumber: string
  carrierKey: number
  /** TRACKING_UPDATED: the record's state; absent for other events. */
  lookup?: CarrierLookup
}

export function readPush(body: unknown): SeventeenTrackPush | null {
  const push = obj(body)
  const data = obj(push.data)
  const number = str(data.number)
  const carrierKey = Number(data.carrier)
  if (!number || !Number.isInteger(carrierKey)) return null
  const event = str(push.event)
  if (event !== 'TRACKING_UPDATED') return { event, trackingNumber: numberKey(number), carrierKey }
  return { event, trackingNumber: numberKey(number), carrierKey, lookup: lookupOfTrackInfo(obj(data.track_info)) }
}
