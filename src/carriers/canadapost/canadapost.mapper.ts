import { XMLParser } from 'fast-xml-parser'
import type { StandardStatus } from '../../domain/statuses'
import { proofOfDeliveryOf, type ProofOfDelivery } from '../../domain/tracking-task'
import { addressOrNull, eventKey, parseCarrierTime, type CarrierEvent, type CarrierSnapshot } from '../../domain/tracking-update'
import { oldestFirst } from '../answers'
import type { CarrierLookup } from '../carrier'
import { arr, obj, type Json } from '../json'
import { localToUtc } from '../time-zones'
import { CANADAPOST_NO_STATUS, CANADAPOST_STATUSES, identifierOf } from './canadapost.statuses'

/**
 * Canada Post tracking answers (XML) → a lookup (docs/carriers.md, "Canada Post"). What its kit
 * teaches: the namespace varies (track, track-v2, none; messages or track on the same error), so
 * elements are read by their local names; a body may start with whitespace before `<?xml`; times
 * are a date, a time and a zone's name (EST); day-level events carry 11:59:59, which is no time;
 * identifiers are written with and without leading zeros; absent values are empty elements; texts
 * hold character references and line breaks.
 */

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  htmlEntities: true,
  isArray: (name) => name === 'occurrence' || name === 'message' || name === 'item',
})

/** What Canada Post answered: a PIN's detail, or its messages (codes and texts); undefined when the body is not XML. */
export type CanadaPostAnswer = { kind: 'detail'; detail: Json } | { kind: 'messages'; messages: { code: string; description: string }[] }

export function readAnswer(text: string): CanadaPostAnswer | undefined {
  const xml = text.trim()
  if (!xml.startsWith('<')) return undefined
  let root: Json
  try {
    // Validated as it is parsed: a body that is not well-formed XML (truncated, HTML) throws.
    root = obj(parser.parse(xml, true))
  } catch {
    return undefined
  }
  if (root['tracking-detail'] !== undefined) return { kind: 'detail', detail: obj(root['tracking-detail']) }
  if (root.messages !== undefined) {
    return { kind: 'messages', messages: arr(obj(root.messages).message).map((m) => ({ code: textOf(obj(m).code), description: textOf(obj(m).description) })) }
  }
  return undefined
}

/** An element's text, whitespace collapsed ("" for an empty element). */
function textOf(value: unknown): string {
  return (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '').replace(/\s+/g, ' ').trim()
}

/** Canada's zone names as Canada Post writes them, standard and daylight. */
const ZONE_OFFSETS: Readonly<Record<string, string>> = {
  NST: '-03:30',
  NDT: '-02:30',
  AST: '-04:00',
  ADT: '-03:00',
  EST: '-05:00',
  EDT: '-04:00',
  CST: '-06:00',
  CDT: '-05:00',
  MST: '-07:00',
  MDT: '-06:00',
  PST: '-08:00',
  PDT: '-07:00',
}

/** A province's zone, for an event whose zone's name is missing or unknown. */
const PROVINCE_ZONES: Readonly<Record<string, string>> = {
  NL: 'America/St_Johns',
  NS: 'America/Halifax',
  NB: 'America/Moncton',
  PE: 'America/Halifax',
  QC: 'America/Toronto',
  ON: 'America/Toronto',
  MB: 'America/Winnipeg',
  SK: 'America/Regina',
  AB: 'America/Edmonton',
  BC: 'America/Vancouver',
  YT: 'America/Whitehorse',
  NT: 'America/Yellowknife',
  NU: 'America/Iqaluit',
}

const RETURNED = /returned to (the )?(sender|shipper)/i

/** A day-level event's time: the day happened, the hour did not. */
const PLACEHOLDER_TIME = '11:59:59'

function eventOf(occurrence: Json): CarrierEvent | null {
  const date = textOf(occurrence['event-date'])
  const time = textOf(occurrence['event-time']) || '00:00:00'
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^\d{2}:\d{2}(:\d{2})?$/.test(time)) return null
  const zone = ZONE_OFFSETS[textOf(occurrence['event-time-zone']).toUpperCase()]
  const province = textOf(occurrence['event-province']).toUpperCase()
  const wall = `${date}T${time.length === 5 ? `${time}:00` : time}`
  const eventTime = zone ? parseCarrierTime(`${wall}${zone}`) : PROVINCE_ZONES[province] ? localToUtc(wall, PROVINCE_ZONES[province]) : parseCarrierTime(wall)
  if (!eventTime || Number.isNaN(eventTime.getTime())) return null
  const code = identifierOf(textOf(occurrence['event-identifier']))
  const description = textOf(occurrence['event-description'])
  // No identifier of a return is known: its text says it ("will be returned" only announces one).
  const returned = RETURNED.test(description) && !/will be returned/i.test(description)
  const meaning = returned
    ? ({ status: 'returned', milestone: 'returned' } as const)
    : CANADAPOST_NO_STATUS.has(code)
      ? null
      : CANADAPOST_STATUSES.meaning(code)
  const event = {
    eventTime,
    eventCode: code,
    status: meaning?.status ?? '',
    statusInfo: '',
    description,
    exceptionDescription: '',
    country: 'CA',
    state: province,
    city: textOf(occurrence['event-site']),
    postalCode: '',
    address: '',
  }
  // The offset of the zone Canada Post named; none for a placeholder time (no local time to show).
  const utcOffset = zone && time !== PLACEHOLDER_TIME ? zone : null
  return { ...event, milestone: meaning?.milestone ?? '', key: eventKey(event), utcOffset }
}

/** An ETA written as a day: the end of that day, at the newest event's offset (Eastern time without one). */
function endOfDay(day: string, offset: string): Date | null {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? parseCarrierTime(`${day}T23:59:59${offset}`) : null
}

export function snapshotFromDetail(detail: Json): CarrierSnapshot {
  const occurrences = arr(obj(detail['significant-events']).occurrence).map(obj)
  const events = oldestFirst(
    occurrences.map(eventOf).filter((e): e is CarrierEvent => e !== null),
    (e) => e.eventTime.getTime(),
  )
  // The newest event that moves a status (a delivery twice: the second one), never the signature.
  const newest = events.findLast((e) => e.status !== '')
  const current = newest && newest.milestone !== '' ? { status: newest.status as StandardStatus, milestone: newest.milestone } : null
  const offset = events.findLast((e) => e.utcOffset)?.utcOffset ?? '-05:00'
  return {
    rawStatusCode: events.at(-1)?.eventCode ?? '',
    standardStatus: current?.status ?? null,
    milestone: current?.milestone ?? null,
    carrierStatus: events.at(-1)?.description ?? '',
    estimatedDeliveryAt: endOfDay(textOf(detail['changed-expected-date']), offset) ?? endOfDay(textOf(detail['expected-delivery-date']), offset),
    originAddress: null,
    destinationAddress: addressOrNull({ country: 'CA', state: '', city: '', postalCode: textOf(detail['destination-postal-id']), address: '' }),
    proofOfDelivery: current?.status === 'delivered' ? proofOf(detail, occurrences) : null,
    events,
  }
}

/** Who signed (the newest signature event's signatory), where, and whether Canada Post keeps the signature's image. */
function proofOf(detail: Json, occurrences: Json[]): ProofOfDelivery | null {
  const signed = occurrences.find((o) => textOf(o['signatory-name']) !== '')
  const delivered = occurrences.find((o) => CANADAPOST_STATUSES.meaning(identifierOf(textOf(o['event-identifier'])))?.status === 'delivered')
  return proofOfDeliveryOf({
    signedBy: signed ? textOf(signed['signatory-name']) : '',
    location: delivered ? textOf(delivered['event-site']) : '',
    signatureAvailable: textOf(detail['signature-image-exists']) === 'true',
    documentUrl: '',
  })
}

/** A PIN's detail → its lookup; undefined when the detail is for another PIN. */
export function lookupFromDetail(pin: string, detail: Json): CarrierLookup | undefined {
  const answered = textOf(detail.pin).toUpperCase()
  if (answered && answered !== pin.trim().toUpperCase()) return undefined
  return { found: true, snapshot: snapshotFromDetail(detail) }
}
