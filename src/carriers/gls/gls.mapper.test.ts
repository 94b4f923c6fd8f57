import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { MILESTONES, type Milestone } from '../../domain/milestones'
import { glsCheck } from './gls.formats'
import { lookupsFromAnswer } from './gls.mapper'
import { GLS_NO_STATUS, GLS_PARCEL_STATUSES, GLS_STATUSES, glsEventMeaning } from './gls.statuses'

// GLS's recorded answers (test/fixtures/carriers/gls: a real Irish delivery, GLS's official
// examples of a ParcelShop delivery, a not-found beside a pre-advice, one reference answering two
// parcels) and its two code tables, with each trap of its kit.
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../../test/fixtures/carriers/gls/${name}`, import.meta.url), 'utf8'))

function found(asked: string[], body: unknown, number = asked[0]!) {
  const lookup = lookupsFromAnswer(asked, body).get(number)
  if (!lookup?.found) throw new Error(`expected ${number} to be found, got ${JSON.stringify(lookup)}`)
  return lookup.snapshot
}

describe('a real delivery in Ireland', () => {
  const s = found(['21569979615'], fixture('response-delivered-real-ie.json'))

  it('is delivered, by the parcel’s status, with GLS’s words', () => {
    expect(s).toMatchObject({
      standardStatus: 'delivered',
      milestone: 'delivered',
      rawStatusCode: 'DELIVERED',
      carrierStatus: 'The parcel has been delivered.',
    })
  })

  it('reads offsets written without a colon, and keeps the order of two events a second apart', () => {
    expect(s.events.map((e) => e.eventCode)).toEqual(['INTIAL.PREADVICE', 'INTIAL.NORMAL', 'INBOUD.NORMAL', 'OUTDEL.NORMAL', 'DELIVD.NORMAL'])
    expect(s.events.at(-1)!.eventTime.toISOString()).toBe('2026-07-29T08:02:00.000Z')
    expect(s.events.map((e) => e.milestone)).toEqual(['info_received', 'in_transit', 'in_transit', 'out_for_delivery', 'delivered'])
  })

  it('gives no local time in Ireland: GLS writes Central European Time wherever the scan was', () => {
    expect(s.events.every((e) => e.utcOffset === null && e.country === 'IE')).toBe(true)
  })
})

describe("GLS's official examples", () => {
  it('a parcel "delivered" to a ParcelShop waits there for its receiver; an event without a country has no local time', () => {
    const s = found(['42249028960'], fixture('response-delivered-parcelshop-links-official.json'))
    expect(s).toMatchObject({ standardStatus: 'in_transit', milestone: 'available_for_pickup', rawStatusCode: 'DELIVEREDPS' })
    expect(s.events.map((e) => e.utcOffset)).toEqual(['+01:00', '+01:00', '+01:00', null])
    expect(s.originAddress).toMatchObject({ country: 'DE' })
  })

  it('not found is an element of a 200, beside a parcel that is found', () => {
    const lookups = lookupsFromAnswer(['42249018928', '36301917596'], fixture('response-preadvice-and-not-found-official.json'))
    expect(lookups.get('42249018928')).toEqual({ found: false, reason: 'E_404_01' })
    expect(lookups.get('36301917596')).toMatchObject({ found: true, snapshot: { standardStatus: 'pending', milestone: 'info_received' } })
  })

  it('one reference answering two parcels: as far as the less advanced, their events together', () => {
    const body = structuredClone(fixture('response-reference-two-parcels-official.json')) as { parcels: { status: string }[] }
    body.parcels[0]!.status = 'DELIVERED'
    const s = found(['747N6K'], body)
    expect(s).toMatchObject({ standardStatus: 'in_transit', milestone: 'in_transit' })
    // The two parcels' pre-advice is one event (same time, code and text); the hand-overs are two.
    expect(s.events.map((e) => e.eventCode)).toEqual(['INTIAL.PREADVICE', 'INTIAL.NORMAL', 'INTIAL.NORMAL'])
  })
})

describe('the traps of its kit', () => {
  it('matches by requested, not unitno: a 12-digit number comes back as its 11-digit unit', () => {
    const body = { parcels: [{ requested: '604831862623', unitno: '60483186262', status: 'INTRANSIT', events: [] }] }
    expect(lookupsFromAnswer(['604831862623'], body).get('604831862623')).toMatchObject({ found: true, snapshot: { milestone: 'in_transit' } })
    expect(lookupsFromAnswer(['60483186262'], body).size).toBe(0)
  })

  it('shows a return by its text only; FINAL and a change of address move no status', () => {
    expect(glsEventMeaning('DELIVD.NORMAL', 'The parcel has been returned to the shipper.')).toEqual({ status: 'returned', milestone: 'returned' })
    expect(glsEventMeaning('CHANGD.MONEWADDR', 'Change completed for - Delivery at new address')).toBe('no_change')
    expect(glsEventMeaning('XXXXXX.NEW', 'The parcel could not be delivered as the consignee was absent.')).toEqual({
      status: 'exception',
      milestone: 'failed_attempt',
    })
    expect(glsEventMeaning('XXXXXX.NEW', 'Something new.')).toBeNull()
    const closed = {
      parcels: [
        {
          requested: '21569979615',
          status: 'FINAL',
          events: [{ code: 'DELIVD.NORMAL', country: 'DE', description: 'The parcel has been delivered.', eventDateTime: '2026-07-29T10:02:00+0200' }],
        },
      ],
    }
    expect(found(['21569979615'], closed)).toMatchObject({ standardStatus: 'delivered', rawStatusCode: 'FINAL' })
  })

  it('leaves out a number GLS failed on, or was not asked, and survives garbage', () => {
    const body = {
      parcels: [
        { requested: '1', errorCode: 'E_500_01', errorMessage: 'Internal Server Error' },
        { requested: 'OTHER', status: 'DELIVERED', events: [] },
      ],
    }
    expect(lookupsFromAnswer(['1'], body).size).toBe(0)
    for (const garbage of [null, 'x', { parcels: 'x' }, { parcels: [null, 1, { requested: 1 }] }]) expect(() => lookupsFromAnswer(['1'], garbage)).not.toThrow()
  })

  it('checks the 12-digit number as GLS computes it', () => {
    expect(['604831862623', '938353680251', '215699796151'].every(glsCheck)).toBe(true)
    expect(['604831862624', '938353680252'].some(glsCheck)).toBe(false)
  })
})

describe('the status tables', () => {
  type Entry = { standardStatus: string; milestone: Milestone; ignoreForStatus?: boolean }
  const kit = fixture('status-codes.json') as { statuses: Record<string, Entry>; events: Record<string, Entry> }

  it.each(Object.entries(kit.statuses))('maps the parcel status %s as the kit does', (code, entry) => {
    expect(GLS_PARCEL_STATUSES.meaning(code)).toEqual({ status: entry.standardStatus, milestone: entry.milestone })
    expect(MILESTONES[entry.milestone]).toBe(entry.standardStatus)
    expect(GLS_NO_STATUS.has(code)).toBe(entry.ignoreForStatus === true)
  })

  it.each(Object.entries(kit.events))('maps the event %s as the kit does', (code, entry) => {
    expect(GLS_STATUSES.meaning(code)).toEqual({ status: entry.standardStatus, milestone: entry.milestone })
    expect(GLS_NO_STATUS.has(code)).toBe(entry.ignoreForStatus === true)
  })

  it('holds no code the kit does not', () => {
    expect(GLS_PARCEL_STATUSES.codes.sort()).toEqual(Object.keys(kit.statuses).sort())
    expect(GLS_STATUSES.codes.sort()).toEqual(Object.keys(kit.events).sort())
  })
})
