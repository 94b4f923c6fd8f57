import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { MILESTONES, type Milestone } from '../../domain/milestones'
import { errorOf, lookupFromAnswer, plainText, trackedNumber, uspsOffset } from './usps.mapper'
import { USPS_NO_STATUS, USPS_STATUSES, uspsMeaning } from './usps.statuses'

// USPS's recorded answers (test/fixtures/carriers/usps: three real v3 answers, USPS's own examples,
// the not-found and error bodies) and its status-code table.
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../../test/fixtures/carriers/usps/${name}`, import.meta.url), 'utf8'))

function found(body: unknown) {
  const lookup = lookupFromAnswer(body)
  if (!lookup?.found) throw new Error('expected found')
  return lookup.snapshot
}

const at = (snapshot: ReturnType<typeof found>, code: string) => snapshot.events.filter((e) => e.eventCode === code).map((e) => e.eventTime.toISOString())

describe('a real answer, delivered to a parcel locker', () => {
  const snapshot = found(fixture('response-delivered-locker-real.json'))

  it('is delivered, from the newest event', () => {
    expect(snapshot).toMatchObject({ rawStatusCode: '01', standardStatus: 'delivered', milestone: 'delivered', carrierStatus: 'Delivered, Parcel Locker' })
  })

  it('reads each time as local time minus its offset, with GMTTimestamp’s seconds', () => {
    expect(at(snapshot, '01')).toEqual(['2024-11-22T18:58:40.000Z'])
    expect(at(snapshot, 'GX')).toEqual(['2024-11-15T16:32:33.000Z'])
  })

  it('keeps every event, oldest first, the three in-transit scans without a place too', () => {
    expect(snapshot.events).toHaveLength(12)
    expect(snapshot.events.map((e) => e.eventCode)).toEqual(['GX', '03', 'SF', '10', 'T1', 'TL', 'TL', 'TL', 'A1', '07', 'OF', '01'])
    expect(snapshot.events.find((e) => e.eventCode === 'OF')).toMatchObject({
      milestone: 'out_for_delivery',
      city: 'HERNANDO',
      state: 'FL',
      postalCode: '34442',
      country: 'US',
    })
  })
})

describe('a real answer for a partner’s IMpb, delivered in the mailbox', () => {
  const snapshot = found(fixture('response-delivered-partner-real.json'))

  it('corrects a GMTTimestamp dated a day early: 23:28 local at −06:00 is 05:28 UTC the next day', () => {
    expect(at(snapshot, '81')).toContain('2024-11-22T05:28:33.000Z')
  })

  it('says each event’s own offset, and none for events that carry none (never the borrowed one)', () => {
    const offsets = Object.fromEntries(snapshot.events.map((e) => [e.eventCode, e.utcOffset]))
    expect(offsets).toMatchObject({ '01': '-06:00', '80': null, GX: null })
    expect(snapshot.events.find((e) => e.eventCode === '81' && e.utcOffset === '-05:00')).toBeDefined()
  })

  it('gives events without an offset (the partner’s pickup, the label) the nearest event’s', () => {
    // 80 at 17:01 local sits between events at −06:00; the label at 09:27 local beside one at −05:00.
    expect(at(snapshot, '80')).toEqual(['2024-11-21T23:01:00.000Z'])
    expect(at(snapshot, 'GX')).toEqual(['2024-11-19T14:27:00.000Z'])
  })

  it('orders the history by UTC across two time zones', () => {
    const times = snapshot.events.map((e) => e.eventTime.getTime())
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(snapshot.events[0]!.eventCode).toBe('GX')
    expect(snapshot.events.at(-1)).toMatchObject({ eventCode: '01', milestone: 'delivered' })
  })

  it('reads origin and destination as places in the United States (domestic mail)', () => {
    expect(snapshot.originAddress).toEqual({ country: 'US', state: 'WI', city: 'OAK CREEK', postalCode: '53154', address: '' })
    expect(snapshot.destinationAddress).toMatchObject({ country: 'US', state: 'WI', city: 'MILWAUKEE', postalCode: '53207' })
  })
})

describe('a real answer in transit', () => {
  const snapshot = found(fixture('response-in-transit-real.json'))

  it('is in transit, and its ETA is the end of the day USPS gives, at the local offset, not midnight UTC', () => {
    expect(snapshot).toMatchObject({ rawStatusCode: '10', standardStatus: 'in_transit', milestone: 'in_transit' })
    expect(snapshot.estimatedDeliveryAt!.toISOString()).toBe('2024-11-30T05:59:59.000Z')
  })

  it('corrects both GMTTimestamps dated a day early', () => {
    expect(at(snapshot, 'SF')).toEqual(['2024-11-26T00:31:21.000Z'])
    expect(at(snapshot, '03')).toEqual(['2024-11-26T00:26:14.000Z'])
  })

  it('keeps the pre-shipment event, a day written as midnight', () => {
    expect(snapshot.events[0]).toMatchObject({ eventCode: 'MA', milestone: 'info_received', description: 'Pre-Shipment, USPS Awaiting Item' })
  })
})

describe("USPS's own examples", () => {
  it('reads a Z on eventTimestamp as local time; with no offset anywhere, as UTC (said in docs/carriers.md)', () => {
    const snapshot = found(fixture('response-accepted-official-example.json'))
    expect(snapshot).toMatchObject({ standardStatus: 'in_transit', milestone: 'in_transit', carrierStatus: 'USPS in possession of item' })
    expect(at(snapshot, '03')).toEqual(['2023-08-02T07:31:00.000Z'])
  })

  it('strips HTML from texts', () => {
    expect(plainText('USPS Ground Advantage<SUP>&#153;</SUP>')).toBe('USPS Ground Advantage')
    expect(plainText('Sign up for Informed Delivery<SUP>reg;</SUP> to receive')).toBe('Sign up for Informed Delivery to receive')
    expect(plainText('A &amp; B <b>now</b>')).toBe('A & B now')
  })
})

describe('status texts and categories', () => {
  const answer = (events: Record<string, unknown>[], status: string, statusCategory: string) => ({
    trackingNumber: '9400109104250532908587',
    mailType: 'DM',
    status,
    statusCategory,
    trackingEvents: events.map((e) => ({ eventTimestamp: '2024-11-22T13:58:00', GMTOffset: '-7:00', eventCity: 'X', ...e })),
  })

  it('reads "Delivered, To Original Sender" (code 01) as a return, not a delivery', () => {
    const snapshot = found(answer([{ eventCode: '01', eventType: 'Delivered, To Original Sender' }], 'Delivered, To Original Sender', 'Delivered'))
    expect(snapshot).toMatchObject({ standardStatus: 'returned', milestone: 'returned' })
    expect(snapshot.events[0]).toMatchObject({ status: 'returned', milestone: 'returned' })
  })

  it('reads an offset written with one hour digit ("-7:00")', () => {
    expect(uspsOffset('-7:00')).toBe('-07:00')
    expect(at(found(answer([{ eventCode: '03' }], '', '')), '03')).toEqual(['2024-11-22T20:58:00.000Z'])
  })

  it('falls back to statusCategory for an unknown code on the newest event only', () => {
    expect(found(answer([{ eventCode: 'Z9', eventType: 'Something new' }], 'Something new', 'Delivery Attempt'))).toMatchObject({
      standardStatus: 'exception',
      milestone: 'failed_attempt',
      rawStatusCode: 'Z9',
    })
    const older = answer([{ eventCode: '03' }, { eventCode: 'Z9', eventTimestamp: '2024-11-21T10:00:00' }], 'USPS in possession of item', 'Accepted')
    expect(found(older)).toMatchObject({ standardStatus: 'in_transit', rawStatusCode: '03' })
  })

  it('moves no status on GC and DX: the event before them decides', () => {
    const snapshot = found(
      answer([{ eventCode: 'DX' }, { eventCode: 'OF', eventTimestamp: '2024-11-22T08:00:00' }], 'Delivery Status Not Updated', 'In Transit'),
    )
    expect(snapshot).toMatchObject({ rawStatusCode: 'OF', milestone: 'out_for_delivery' })
  })

  it('keeps one of a repeated scan: the copy with a place', () => {
    const repeated = answer(
      [
        { eventCode: 'A1', eventCity: null },
        { eventCode: 'A1', eventCity: 'MILWAUKEE' },
      ],
      '',
      '',
    )
    expect(found(repeated).events.map((e) => [e.eventCode, e.city])).toEqual([['A1', 'MILWAUKEE']])
  })

  it('parses booleans as strings and services as a string or an array without complaint', () => {
    expect(found({ ...answer([{ eventCode: '03' }], '', ''), services: 'USPS Tracking', emailEnabled: 'true' }).standardStatus).toBe('in_transit')
  })
})

describe('errors and numbers', () => {
  it('reads the not-found bodies of v3 (HTTP 400, title) and v3r2 (HTTP 404, detail)', () => {
    expect(errorOf(fixture('response-not-found-v3-real.json'))).toMatchObject({
      code: '150001',
      text: expect.stringMatching(/^12: A status update is not yet available/),
    })
    expect(errorOf(fixture('response-not-found-v3r2-tem.json'))).toMatchObject({
      code: '150006',
      text: expect.stringMatching(/^A status update is not yet available/),
    })
  })

  it('tracks a routed IMpb by its IMpb part', () => {
    expect(trackedNumber('420117419361289691090029427113')).toBe('9361289691090029427113')
    expect(trackedNumber('4203278000009205596900893430673167')).toBe('9205596900893430673167')
    expect(trackedNumber('4205690192023901019232002167055441')).toBe('92023901019232002167055441')
    expect(trackedNumber('9400109104250532908587')).toBe('9400109104250532908587')
    expect(trackedNumber('EA123456785US')).toBe('EA123456785US')
  })
})

describe('the status table', () => {
  const kit = fixture('status-codes.json') as { codes: Record<string, { standardStatus: string; milestone: Milestone; ignoreForStatus?: boolean }> }

  it.each(Object.entries(kit.codes))('maps %s as the kit does', (code, entry) => {
    expect(USPS_STATUSES.meaning(code)).toEqual({ status: entry.standardStatus, milestone: entry.milestone })
    expect(MILESTONES[entry.milestone]).toBe(entry.standardStatus)
    expect(USPS_NO_STATUS.has(code)).toBe(entry.ignoreForStatus === true)
  })

  it('holds no code the kit does not', () => {
    expect(USPS_STATUSES.codes.sort()).toEqual(Object.keys(kit.codes).sort())
  })

  it('reads a code-01 return by its text', () => {
    expect(uspsMeaning('01', 'Delivered, To Original Sender')).toEqual({ status: 'returned', milestone: 'returned' })
    expect(uspsMeaning('01', 'Delivered to Agent, Front Desk')).toEqual({ status: 'delivered', milestone: 'delivered' })
  })
})
