import type { Address } from '../../domain/tracking-task'
import { addressOrNull, eventKey, parseCarrierTime, type CarrierEvent, type CarrierSnapshot } from '../../domain/tracking-update'
import type { CarrierLookup } from '../carrier'
import { impbCheck, impbReadings } from '../impb'
import { arr, obj, str, type Json } from '../json'
import { USPS_NO_STATUS, uspsCategoryMeaning, uspsMeaning } from './usps.statuses'

/**
 * USPS Tracking API v3 answers → snapshots (docs/carriers.md, "USPS"). What real answers teach:
 * `eventTimestamp` is local time without an offset (a `Z` on it is not UTC either); `GMTOffset`
 * is that time's offset (written "-05:00" or "-7:00"); `GMTTimestamp` is dated a day early when UTC
 * crosses midnight, so the UTC time is the local time minus the offset and `GMTTimestamp` gives
 * only its seconds; partner and label events carry no offset; events come newest first and repeat;
 * a code-01 "Delivered, To Original Sender" is a return; the ETA is a day written as midnight;
 * booleans are strings and `services` a string or an array; texts carry HTML.
 */

/** "-7:00", "-07:00", "+0530" → "-07:00", "+05:30"; anything else → null. */
export function uspsOffset(value: unknown): string | null {
  const match = /^([+-])(\d{1,2}):?(\d{2})$/.exec(str(value))
  if (!match || Number(match[2]) > 14 || Number(match[3]) > 59) return null
  return `${match[1]}${match[2]!.padStart(2, '0')}:${match[3]}`
}

/** "2024-11-22T13:58:00" (or with a misleading Z) → "2024-11-22T13:58:00"; not a local time → null. */
function localTime(value: unknown): string | null {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2}))?(?:\.\d+)?Z?$/i.exec(str(value))
  return match ? `${match[1]}T${match[2]}:${match[3] ?? '00'}` : null
}

/** HTML in USPS's texts ("Priority Mail<SUP>&reg;</SUP>", "Informed Delivery<SUP>reg;</SUP>") → plain text. */
export function plainText(value: unknown): string {
  return str(value)
    .replace(/<sup>[\s\S]*?<\/sup>/gi, '')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, entity: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' })[entity]!)
    .replace(/&#?\w+;/g, '')
    .replace(/\s+/g, ' ')
    .trim()
}

/**
 * Each event's offset: its own, else the nearest event's that has one (partner and label events
 * carry none; their scans happen near the next or previous scan). null when no event has one.
 */
function offsetsOf(events: Json[]): (string | null)[] {
  const own = events.map((e) => uspsOffset(e.GMTOffset))
  return own.map((offset, i) => {
    if (offset) return offset
    for (let d = 1; d < own.length; d++) {
      const near = own[i - d] ?? own[i + d]
      if (near) return near
    }
    return null
  })
}

/**
 * An event's UTC time: its local time at its offset, with GMTTimestamp's seconds (the local time
 * has none). Without any offset in the answer the local time is read as UTC (docs/carriers.md).
 */
function eventTime(event: Json, offset: string | null): Date | null {
  const local = localTime(event.eventTimestamp)
  if (!local) return null
  const seconds = /:(\d{2})(?:\.\d+)?Z$/i.exec(str(event.GMTTimestamp))?.[1]
  const withSeconds = seconds && local.endsWith(':00') ? `${local.slice(0, -2)}${seconds}` : local
  return parseCarrierTime(`${withSeconds}${offset ?? 'Z'}`)
}

function place(city: unknown, state: unknown, zip: unknown, country: unknown, domestic: boolean): Address {
  return { country: str(country) || (domestic ? 'US' : ''), state: str(state), city: str(city), postalCode: str(zip), address: '' }
}

/** Domestic mail ("DM" in real answers, DOMESTIC_MAIL in the spec): its places are in the United States. */
const isDomestic = (body: Json) => /^(DM|DOMESTIC_MAIL)$/i.test(str(body.mailType))

interface Read {
  event: CarrierEvent
  code: string
  local: string
}

function readEvent(raw: Json, offset: string | null, domestic: boolean): Read | null {
  const time = eventTime(raw, offset)
  // An event without a readable time cannot be placed in the history; it is skipped.
  if (!time) return null
  const code = str(raw.eventCode).toUpperCase()
  const description = plainText(raw.eventType)
  const meaning = USPS_NO_STATUS.has(code) ? null : uspsMeaning(code, description)
  const fields = {
    eventTime: time,
    eventCode: code,
    status: meaning?.status ?? '',
    statusInfo: '',
    description,
    exceptionDescription: '',
    ...place(raw.eventCity, raw.eventState, raw.eventZIP, raw.eventCountry, domestic),
  }
  // The event's own offset only: one borrowed from a neighbour places the event, but is not said as its local time.
  const utcOffset = uspsOffset(raw.GMTOffset)
  return { event: { ...fields, milestone: meaning?.milestone ?? '', key: eventKey(fields), utcOffset }, code, local: localTime(raw.eventTimestamp)! }
}

/** USPS repeats a scan, some copies without a place: one event per code and local time, the one with a place kept. */
function deduplicated(reads: Read[]): Read[] {
  const kept = new Map<string, Read>()
  for (const read of reads) {
    const key = `${read.code} ${read.local} ${read.event.city}`
    const bare = `${read.code} ${read.local} `
    if (kept.has(key)) continue
    if (read.event.city && kept.has(bare)) kept.delete(bare)
    else if (!read.event.city && [...kept.keys()].some((k) => k.startsWith(bare))) continue
    kept.set(key, read)
  }
  return [...kept.values()]
}

/**
 * The ETA: expectedDeliveryTimeStamp is a day ("2024-11-29T00:00:00"): the end of that day at the
 * newest offset (UTC without one); a real time of day is kept. null: keep the task's.
 */
function estimatedDelivery(body: Json, offset: string | null): Date | null {
  const local =
    localTime(body.expectedDeliveryTimeStamp) ??
    (/^\d{4}-\d{2}-\d{2}$/.test(str(body.expectedDeliveryTimeStamp)) ? `${str(body.expectedDeliveryTimeStamp)}T00:00:00` : null)
  if (!local) return null
  const time = local.endsWith('T00:00:00') ? `${local.slice(0, 11)}23:59:59` : local
  return parseCarrierTime(`${time}${offset ?? 'Z'}`)
}

export function snapshotFromAnswer(body: Json): CarrierSnapshot {
  const raws = arr(body.trackingEvents).map(obj)
  const offsets = offsetsOf(raws)
  const domestic = isDomestic(body)
  // Newest first, as USPS sends them (tracking.yaml: "in reverse chronological order").
  const reads = deduplicated(raws.map((raw, i) => readEvent(raw, offsets[i]!, domestic)).filter((r): r is Read => r !== null))
  const current = reads.find((r) => !USPS_NO_STATUS.has(r.code))
  const newest = reads[0]
  const known = current ? uspsMeaning(current.code, current.event.description) : null
  // An unknown code on the newest event (or no event): the shipment's statusCategory says what it means.
  const meaning = known ?? (current === newest ? uspsCategoryMeaning(str(body.statusCategory), plainText(body.status)) : null)
  return {
    rawStatusCode: current?.code ?? '',
    standardStatus: meaning?.status ?? null,
    milestone: meaning?.milestone ?? null,
    carrierStatus: plainText(body.status) || current?.event.description || '',
    estimatedDeliveryAt: estimatedDelivery(body, offsets.find(Boolean) ?? null),
    originAddress: addressOrNull(place(body.originCity, body.originState, body.originZIP, body.originCountry, domestic)),
    destinationAddress: addressOrNull(place(body.destinationCity, body.destinationState, body.destinationZIP, body.destinationCountry, domestic)),
    // USPS's tracking answer carries no proof of delivery: the letter is e-mailed on request.
    proofOfDelivery: null,
    events: reads.map((r) => r.event).sort((a, b) => a.eventTime.getTime() - b.eventTime.getTime()),
  }
}

/** A track answer (HTTP 200) → the number's lookup; undefined when it says nothing usable. */
export function lookupFromAnswer(body: unknown): CarrierLookup | undefined {
  const answer = obj(body)
  if (!Array.isArray(answer.trackingEvents) && !str(answer.trackingNumber)) return undefined
  return { found: true, snapshot: snapshotFromAnswer(answer) }
}

/** USPS's error body ({apiVersion, error: {code, message, errors: [{code, title, detail}]}}) → its subordinate code and text. */
export function errorOf(body: unknown): { code: string; text: string } {
  const error = obj(obj(body).error)
  const first = obj(arr(error.errors)[0])
  return { code: str(first.code), text: plainText(str(first.title) || str(first.detail) || str(error.message)) }
}

/**
 * The number USPS tracks: a routed IMpb (420 + ZIP or ZIP+4 + the IMpb, as scanned from the
 * label's barcode) is tracked by its IMpb part; any other number as given.
 */
export function trackedNumber(number: string): string {
  const readings = impbReadings(number)
  return readings.find(impbCheck) ?? readings[0] ?? number
}
