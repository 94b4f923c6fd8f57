import { proofOfDeliveryOf, type Address, type ProofOfDelivery } from '../../domain/tracking-task'
import { addressOrNull, eventKey, parseCarrierTime, writtenOffset, type CarrierEvent, type CarrierSnapshot } from '../../domain/tracking-update'
import type { CarrierLookup } from '../carrier'
import { arr, obj, str, type Json } from '../json'
import { localToUtc } from '../time-zones'
import { zoneOf } from './dhl.places'
import { dhlMeaning, type DhlMeaning } from './dhl.statuses'

/**
 * DHL Shipment Tracking – Unified answers → snapshots (docs/carriers.md, "DHL"). What real answers
 * teach: one number may answer several shipments (the one whose id or piece id is the number, else
 * the newest); times come without an offset (local to the event's place), with Z, or with an
 * offset and nanoseconds; events are listed newest first but repeat and may carry a stale event
 * from a reused number; `status` is a code, a German or English sentence, or absent, by service
 * and date; a return ends in a delivered event with `returnFlag` on the shipment.
 */

/** An event more than this much older than the next is a reused number's leftover. */
const STALE_GAP_MS = 90 * 86_400_000

interface Read {
  event: CarrierEvent
  meaning: DhlMeaning | null
}

const fieldsOf = (e: Json) => ({
  statusCode: str(e.statusCode),
  status: str(e.status),
  statusDetailed: str(e.statusDetailed),
  description: str(e.description),
  remark: str(e.remark),
})

function placeOf(location: unknown): { address: Json; zone: string | undefined } {
  const address = obj(obj(location).address)
  return { address, zone: zoneOf({ countryCode: str(address.countryCode), addressLocality: str(address.addressLocality) }) }
}

function dhlAddress(address: Json): Address {
  return {
    country: str(address.countryCode),
    state: '',
    city: str(address.addressLocality),
    postalCode: str(address.postalCode),
    address: str(address.streetAddress),
  }
}

/**
 * An event's UTC time: exact when DHL wrote an offset or Z; else the local time at its place's
 * zone, or the nearest event's place's; UTC when no place tells (docs/carriers.md).
 */
function eventTime(timestamp: string, zone: string | undefined): Date | null {
  if (/(Z|[+-]\d{2}:?\d{2})$/i.test(timestamp)) return parseCarrierTime(timestamp)
  const local = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::(\d{2}))?/.exec(timestamp)
  if (!local) return null
  const wall = `${local[1]}T${local[2]}:${local[3] ?? '00'}`
  return zone ? localToUtc(wall, zone) : parseCarrierTime(wall)
}

/** The offset DHL wrote: Z is one too (UTC, "+00:00"); none when the time is local without it. */
function offsetOf(timestamp: string): string | null {
  return /\dZ$/i.test(timestamp.trim()) ? '+00:00' : writtenOffset(timestamp)
}

function readEvents(service: string, raws: Json[]): Read[] {
  const zones = raws.map((e) => placeOf(e.location).zone)
  const reads: Read[] = []
  raws.forEach((raw, i) => {
    let zone = zones[i]
    for (let d = 1; !zone && d < zones.length; d++) zone = zones[i - d] ?? zones[i + d]
    const time = eventTime(str(raw.timestamp), zone)
    // An event without a readable time cannot be placed in the history; it is skipped.
    if (!time) return
    const fields = fieldsOf(raw)
    const meaning = dhlMeaning(service, fields)
    // An Express event with neither statusCode nor a text the patterns know: in transit.
    const known = meaning === null ? { status: 'in_transit' as const, milestone: 'in_transit' as const } : meaning
    const moving = known === 'no_change' ? null : known
    const event = {
      eventTime: time,
      eventCode: fields.statusDetailed || (/^[A-Z0-9_-]{1,40}$/.test(fields.status) ? fields.status : '') || fields.statusCode,
      status: moving?.status ?? '',
      statusInfo: fields.status && fields.status !== fields.description ? fields.status : fields.statusCode,
      description: fields.description || fields.status,
      exceptionDescription: '',
      ...dhlAddress(placeOf(raw.location).address),
    }
    reads.push({ event: { ...event, milestone: moving?.milestone ?? '', key: eventKey(event), utcOffset: offsetOf(str(raw.timestamp)) }, meaning: known })
  })
  return reads
}

/** One event per time, text and place (DHL repeats scans), and none far older than the rest (a reused number's leftover). */
function cleaned(reads: Read[]): Read[] {
  const unique = [...new Map(reads.map((r) => [r.event.key, r])).values()].sort((a, b) => a.event.eventTime.getTime() - b.event.eventTime.getTime())
  let first = 0
  while (first < unique.length - 1 && unique[first + 1]!.event.eventTime.getTime() - unique[first]!.event.eventTime.getTime() > STALE_GAP_MS) first++
  return unique.slice(first)
}

/** The shipment the number names: its id, else one of its pieces (parcel-de's piece ids drop the check digit), else the newest. */
export function pickShipment(trackingNumber: string, shipments: Json[]): Json | undefined {
  const number = trackingNumber.trim().toUpperCase()
  const byId = shipments.find(
    (s) =>
      String(s.id ?? '')
        .trim()
        .toUpperCase() === number,
  )
  if (byId) return byId
  const byPiece = shipments.find((s) => arr(obj(s.details).pieceIds).some((p) => [number, number.slice(0, -1)].includes(String(p).trim().toUpperCase())))
  if (byPiece) return byPiece
  const newest = (s: Json) => Math.max(...arr(s.events).map((e) => parseCarrierTime(str(obj(e).timestamp).replace(/(\.\d{3})\d+/, '$1'))?.getTime() ?? 0), 0)
  return [...shipments].sort((a, b) => newest(b) - newest(a))[0]
}

/** DHL's proof of delivery: the signer (the word "Delivered" in one real answer: then the description's "Signed for by: …"), a signature, the document link. */
function dhlProofOfDelivery(shipment: Json, newestDescription: string): ProofOfDelivery | null {
  const details = obj(shipment.details)
  const pod = obj(details.proofOfDelivery)
  const signed = str(obj(pod.signed).name)
  const signedFor = /signed for by:\s*(.+)$/i.exec(newestDescription)?.[1]?.trim() ?? ''
  return proofOfDeliveryOf({
    signedBy: signed && !/^delivered$/i.test(signed) ? signed : signedFor,
    location: '',
    signatureAvailable: details.proofOfDeliverySignedAvailable === true || str(pod.signatureUrl) !== '',
    documentUrl: str(pod.documentUrl),
  })
}

export function snapshotFromShipment(shipment: Json): CarrierSnapshot {
  const service = str(shipment.service)
  const raws = arr(shipment.events).map(obj)
  const listed = readEvents(service, raws)
  const reads = cleaned(listed)
  // The current state: the shipment's own status (DHL's summary), else its first event (newest
  // first in DHL's order; times are no timeline for it); a data event moves nothing.
  const summary = obj(shipment.status)
  const summaryMeaning = Object.keys(summary).length > 0 ? dhlMeaning(service, fieldsOf(summary)) : null
  let current = [summaryMeaning, ...listed.map((r) => r.meaning)].find((m): m is Exclude<DhlMeaning, 'no_change'> => m !== null && m !== 'no_change') ?? null
  // A return ends as a delivery (or a failure) with returnFlag on the shipment: that event is the
  // return, so that nothing (the events, the page, the typed events) says delivered.
  if (shipment.returnFlag === true && current && (current.status === 'delivered' || current.status === 'exception')) {
    current = { status: 'returned', milestone: 'returned' }
    // The newest in DHL's own order (newest first): a return's recorded times are not always in order.
    const ending = listed.find((r) => r.event.status === 'delivered' || r.event.status === 'exception')
    for (const r of reads) if (r.event.key === ending?.event.key) r.event = { ...r.event, status: 'returned', milestone: 'returned' }
  }
  const newestDescription = str(summary.description) || str(obj(raws[0]).description)
  const frame = obj(shipment.estimatedDeliveryTimeFrame)
  return {
    rawStatusCode: str(summary.statusDetailed) || str(summary.statusCode),
    standardStatus: current?.status ?? null,
    milestone: current?.milestone ?? null,
    carrierStatus: str(summary.description) || str(summary.status) || (reads.at(-1)?.event.description ?? ''),
    estimatedDeliveryAt: parseCarrierTime(str(frame.estimatedThrough)) ?? parseCarrierTime(str(shipment.estimatedTimeOfDelivery)),
    originAddress: addressOrNull(dhlAddress(obj(obj(shipment.origin).address))),
    destinationAddress: addressOrNull(dhlAddress(obj(obj(shipment.destination).address))),
    proofOfDelivery: current?.status === 'delivered' ? dhlProofOfDelivery(shipment, newestDescription) : null,
    events: reads.map((r) => r.event),
  }
}

/** A track answer (HTTP 200) → the number's lookup; undefined when it holds no shipment. */
export function lookupFromAnswer(trackingNumber: string, body: unknown): CarrierLookup | undefined {
  const shipment = pickShipment(trackingNumber, arr(obj(body).shipments).map(obj))
  return shipment ? { found: true, snapshot: snapshotFromShipment(shipment) } : undefined
}
