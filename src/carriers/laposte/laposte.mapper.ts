import type { CodeMeaning } from '../status-table'
import { addressOrNull, eventKey, parseCarrierTime, writtenOffset, type CarrierEvent, type CarrierSnapshot } from '../../domain/tracking-update'
import { numberKey, oldestFirst } from '../answers'
import type { CarrierLookup } from '../carrier'
import { arr, obj, str, type Json } from '../json'
import { LAPOSTE_STATUSES, timelineMeaning } from './laposte.statuses'

/**
 * La Poste Suivi v2 answers → lookups (docs/carriers.md, "La Poste"). What its kit teaches: one
 * number answers an array of one element or a bare object; each element has its own `returnCode`
 * (200, or 400 for a number that can never be one, 404 for one not known yet), decided per
 * element whatever the HTTP status; elements are matched to numbers by `shipment.idShip` (an
 * error's `idShip` is at the top); events are newest first and carry no place; every time is
 * written at France's offset, even for a scan abroad.
 */

interface Read {
  event: CarrierEvent
  meaning: CodeMeaning | null
}

function readEvents(raws: Json[], domestic: boolean): Read[] {
  const reads: Read[] = []
  for (const raw of raws) {
    const eventTime = parseCarrierTime(str(raw.date))
    // An event without a readable time cannot be placed in the history; it is skipped.
    if (!eventTime) continue
    const code = str(raw.code).toUpperCase()
    const meaning = LAPOSTE_STATUSES.meaning(code)
    const event = {
      eventTime,
      eventCode: code,
      status: meaning?.status ?? '',
      statusInfo: '',
      description: str(raw.label),
      exceptionDescription: '',
      country: '',
      state: '',
      city: '',
      postalCode: '',
      address: '',
    }
    // France's offset is the event's own only when the parcel never left France.
    reads.push({
      event: { ...event, milestone: meaning?.milestone ?? '', key: eventKey(event), utcOffset: domestic ? writtenOffset(raw.date) : null },
      meaning,
    })
  }
  return reads
}

export function snapshotFromShipment(shipment: Json): CarrierSnapshot {
  const context = obj(shipment.contextData)
  const origin = str(context.originCountry).toUpperCase()
  const arrival = str(context.arrivalCountry).toUpperCase()
  const raws = arr(shipment.event).map(obj)
  const reads = readEvents(raws, origin === 'FR' && arrival === 'FR')
  const history = oldestFirst(reads, (r) => r.event.eventTime.getTime())
  const newest = history.at(-1)
  const reached = arr(shipment.timeline)
    .map(obj)
    .filter((step) => step.status === true)
    .map((step) => Number(step.id))
  // An unknown newest code: the highest timeline step reached, else the previous status stays.
  const current = newest?.meaning ?? timelineMeaning(reached)
  const final = shipment.isFinal === true
  return {
    rawStatusCode: newest?.event.eventCode ?? '',
    standardStatus: current?.status ?? null,
    milestone: current?.milestone ?? null,
    carrierStatus: newest?.event.description ?? '',
    // estimDate becomes the delivery's time once delivered: an estimate only before the end.
    estimatedDeliveryAt: final ? null : parseCarrierTime(str(shipment.estimDate)),
    originAddress: addressOrNull({ country: origin, state: '', city: '', postalCode: '', address: '' }),
    destinationAddress: addressOrNull({ country: arrival, state: '', city: '', postalCode: '', address: '' }),
    proofOfDelivery: null,
    events: history.map((r) => r.event),
  }
}

/** The element's own return code: a number or a numeric string; 0 when it has none. */
function returnCodeOf(element: Json): number {
  const code = Number(element.returnCode)
  return Number.isInteger(code) ? code : 0
}

/**
 * An answer (array or object) → the lookups of the numbers asked, matched by `idShip`. An element
 * for a number not asked is ignored (never attributed to another number); a number without an
 * element, or whose element is neither a shipment nor a 400/404, is left out (the refresh asks again).
 */
export function lookupsFromAnswer(asked: readonly string[], body: unknown): Map<string, CarrierLookup> {
  const byId = new Map(asked.map((number) => [numberKey(number), number]))
  const elements = (Array.isArray(body) ? body : body === undefined || body === null ? [] : [body]).map(obj)
  const lookups = new Map<string, CarrierLookup>()
  for (const element of elements) {
    const shipment = obj(element.shipment)
    const id = numberKey(str(shipment.idShip) || str(element.idShip))
    // An error without idShip to one number asked alone is that number's.
    const number = byId.get(id) ?? (id === '' && asked.length === 1 && !element.shipment ? asked[0] : undefined)
    if (number === undefined || lookups.has(number)) continue
    const code = returnCodeOf(element)
    if (code >= 200 && code < 300 && element.shipment !== undefined) lookups.set(number, { found: true, snapshot: snapshotFromShipment(shipment) })
    else if (code === 404) lookups.set(number, { found: false, reason: 'returnCode 404' })
    else if (code === 400) lookups.set(number, { found: false, reason: 'returnCode 400 (not a number La Poste can track)' })
  }
  return lookups
}
