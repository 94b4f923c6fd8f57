import type { Milestone } from '../../domain/milestones'
import { addressOrNull, eventKey, parseCarrierTime, writtenOffset, type CarrierEvent, type CarrierSnapshot } from '../../domain/tracking-update'
import { numberKey, oldestFirst } from '../answers'
import type { CarrierLookup } from '../carrier'
import { arr, obj, str, type Json } from '../json'
import type { CodeMeaning } from '../status-table'
import { glsEventMeaning, glsParcelMeaning, type GlsMeaning } from './gls.statuses'

/**
 * GLS Track And Trace answers → lookups (docs/carriers.md, "GLS"). What its kit teaches: answers
 * are matched to numbers by `requested`, never `unitno` (a 12-digit number comes back as its
 * 11-digit unit number; one reference may answer several parcels); not found is an element with
 * `errorCode` inside a 200; offsets are written without a colon and are Central European time
 * wherever the scan was; events are newest first, ties a second apart; empty strings for absent
 * places.
 */

/** Countries on Central European Time: there, the offset GLS writes is the scan's own. */
const CENTRAL_EUROPE = new Set([
  'AD',
  'AL',
  'AT',
  'BA',
  'BE',
  'CH',
  'CZ',
  'DE',
  'DK',
  'ES',
  'FR',
  'HR',
  'HU',
  'IT',
  'LI',
  'LU',
  'MC',
  'ME',
  'MK',
  'MT',
  'NL',
  'NO',
  'PL',
  'RS',
  'SE',
  'SI',
  'SK',
  'SM',
])

/** How far each milestone has come: a reference answering several parcels is as far as its least advanced. */
const PROGRESS: Record<Milestone, number> = {
  pending: 0,
  info_received: 0,
  in_transit: 1,
  out_for_delivery: 2,
  available_for_pickup: 2,
  failed_attempt: 2,
  exception: 2,
  delivered: 3,
  returned: 3,
  cancelled: 3,
  expired: 3,
}

interface Read {
  event: CarrierEvent
  meaning: GlsMeaning
}

function readEvents(raws: Json[]): Read[] {
  const reads: Read[] = []
  for (const raw of raws) {
    const eventTime = parseCarrierTime(str(raw.eventDateTime))
    // An event without a readable time cannot be placed in the history; it is skipped.
    if (!eventTime) continue
    const code = str(raw.code).toUpperCase()
    const description = str(raw.description)
    const meaning = glsEventMeaning(code, description)
    const moving = meaning === 'no_change' ? null : meaning
    const country = str(raw.country).toUpperCase()
    const event = {
      eventTime,
      eventCode: code,
      status: moving?.status ?? '',
      statusInfo: '',
      description,
      exceptionDescription: '',
      country,
      state: '',
      city: str(raw.city),
      postalCode: str(raw.postalCode),
      address: '',
    }
    const utcOffset = CENTRAL_EUROPE.has(country) ? writtenOffset(raw.eventDateTime) : null
    reads.push({ event: { ...event, milestone: moving?.milestone ?? '', key: eventKey(event), utcOffset }, meaning })
  }
  return reads
}

/** A meaning that moves a status; null for none and for `no_change`. */
const moving = (meaning: GlsMeaning | undefined): CodeMeaning | null => (meaning && meaning !== 'no_change' ? meaning : null)

/** One parcel: its events oldest first (ties in GLS's reversed order), its current meaning. */
function readParcel(parcel: Json): { reads: Read[]; current: CodeMeaning | null; newest: Read | undefined } {
  const reads = oldestFirst(readEvents(arr(parcel.events).map(obj)), (r) => r.event.eventTime.getTime())
  const newest = reads.at(-1)
  // A return shows only in the newest event's text; else the parcel's status; else the newest
  // event that moves one.
  const newestMeaning = moving(newest?.meaning)
  const current =
    (newestMeaning?.milestone === 'returned' ? newestMeaning : null) ??
    moving(glsParcelMeaning(str(parcel.status))) ??
    moving(reads.findLast((r) => moving(r.meaning))?.meaning)
  return { reads, current, newest }
}

/** The parcels answering one number → its snapshot: several are as far as the least advanced, their events together. */
export function snapshotFromParcels(parcels: Json[]): CarrierSnapshot {
  const read = parcels.map((p) => ({ parcel: p, ...readParcel(p) }))
  const lead = [...read].sort((a, b) => (a.current ? PROGRESS[a.current.milestone] : -1) - (b.current ? PROGRESS[b.current.milestone] : -1))[0]!
  const events = [...new Map(read.flatMap((r) => r.reads).map((r) => [r.event.key, r.event])).values()].sort(
    (a, b) => a.eventTime.getTime() - b.eventTime.getTime(),
  )
  const first = events[0]
  const last = lead.newest?.event
  return {
    rawStatusCode: str(lead.parcel.status),
    standardStatus: lead.current?.status ?? null,
    milestone: lead.current?.milestone ?? null,
    carrierStatus: last?.description || str(lead.parcel.status),
    // Track And Trace's simple answer gives no estimated delivery.
    estimatedDeliveryAt: null,
    originAddress: first ? addressOrNull({ country: first.country, state: '', city: first.city, postalCode: first.postalCode, address: '' }) : null,
    destinationAddress: last ? addressOrNull({ country: last.country, state: '', city: last.city, postalCode: last.postalCode, address: '' }) : null,
    proofOfDelivery: null,
    events,
  }
}

/** Per-parcel error codes that mean "not known (yet)": the task stays pending. */
const NOT_FOUND = new Set(['E_404_01', 'E_404_02', 'E_400_01'])

/**
 * A track answer (HTTP 200) → the lookups of the numbers asked, by `requested`. A number with no
 * element, or only an element GLS failed on (E_500_01), is left out: asked again at the next fetch.
 */
export function lookupsFromAnswer(asked: readonly string[], body: unknown): Map<string, CarrierLookup> {
  const byRequested = new Map(asked.map((n) => [numberKey(n), n]))
  const parcels = new Map<string, Json[]>()
  const errors = new Map<string, string>()
  for (const element of arr(obj(body).parcels).map(obj)) {
    const number = byRequested.get(numberKey(str(element.requested)))
    if (number === undefined) continue
    const errorCode = str(element.errorCode)
    if (errorCode) errors.set(number, errorCode)
    else parcels.set(number, [...(parcels.get(number) ?? []), element])
  }
  const lookups = new Map<string, CarrierLookup>()
  for (const number of asked) {
    const found = parcels.get(number)
    if (found) lookups.set(number, { found: true, snapshot: snapshotFromParcels(found) })
    else if (NOT_FOUND.has(errors.get(number) ?? '')) lookups.set(number, { found: false, reason: errors.get(number)! })
  }
  return lookups
}
