import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { MILESTONES, type Milestone } from '../../domain/milestones'
import { lookupFromAnswer, pickShipment } from './dhl.mapper'
import { localToUtc } from '../time-zones'
import { zoneOf } from './dhl.places'
import { DHL_CODE_TABLES, dhlMeaning } from './dhl.statuses'

// DHL's recorded answers (test/fixtures/carriers/dhl: two real Express shipments in one answer, a
// real DHL Paket answer in German, a real return recorded in 2026, DHL's OpenAPI example) and the
// code tables written from its kit.
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../../test/fixtures/carriers/dhl/${name}`, import.meta.url), 'utf8'))

function found(number: string, body: unknown) {
  const lookup = lookupFromAnswer(number, body)
  if (!lookup?.found) throw new Error(`expected ${number} to be found`)
  return lookup.snapshot
}

const express = fixture('response-express-delivered-attempts-real.json')

describe('a real Express answer holding two shipments', () => {
  it('takes the shipment whose id is the number asked for', () => {
    expect(found('9750874965', express).destinationAddress?.city).toBe('SHARJAH - SHARJAH - UNITED ARAB EMIRATES')
    expect(found('7837177526', express).destinationAddress?.city).toBe('SOUTHERN ALBERTA, AB - CALGARY - CANADA')
  })

  it('reads events without statusCode or status by their texts: out for delivery, two failed attempts, delivered', () => {
    const s = found('9750874965', express)
    expect(s).toMatchObject({ standardStatus: 'delivered', milestone: 'delivered', carrierStatus: 'Delivered - Signed for by: SAMIR. KHALED' })
    const milestones = s.events.map((e) => e.milestone).filter((m) => m !== 'in_transit')
    expect(milestones).toEqual(['out_for_delivery', 'failed_attempt', 'out_for_delivery', 'failed_attempt', 'out_for_delivery', 'delivered'])
  })

  it('reads times without an offset at their place: the Karachi → Dubai legs in order, the offset not presented as given', () => {
    const s = found('9750874965', express)
    const at = (text: string) => s.events.find((e) => e.description.startsWith(text))!
    // 05:05 in Karachi (+05:00) is 00:05 UTC; 10:03 in Dubai (+04:00) is 06:03 UTC.
    expect(at('Departed Facility in KARACHI').eventTime.toISOString()).toBe('2021-05-06T00:05:00.000Z')
    expect(at('Arrived at Sort Facility DUBAI').eventTime.toISOString()).toBe('2021-05-06T06:03:00.000Z')
    const times = s.events.map((e) => e.eventTime.getTime())
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(s.events.every((e) => e.utcOffset === null)).toBe(true)
  })

  it('drops the event a reused waybill number left a year earlier', () => {
    const raw = (express as { shipments: { id: string; events: { timestamp: string }[] }[] }).shipments.find((x) => x.id === '7837177526')!
    expect(raw.events.some((e) => e.timestamp.startsWith('2020-'))).toBe(true)
    const s = found('7837177526', express)
    expect(s.events.every((e) => e.eventTime.getUTCFullYear() === 2021)).toBe(true)
  })

  it('reads the proof of delivery: the signer from the description when DHL writes "Delivered" as the name', () => {
    expect(found('9750874965', express).proofOfDelivery).toMatchObject({
      signedBy: 'SAMIR. KHALED',
      signatureAvailable: true,
      documentUrl: expect.stringMatching(/^https:\/\/webpod\.dhl\.com\//),
    })
    expect(found('7837177526', express).proofOfDelivery).toMatchObject({ signedBy: '', signatureAvailable: true })
  })
})

describe('a real DHL Paket answer in German', () => {
  const s = found('470800204932', fixture('response-parcel-de-delivered-real-de.json'))

  it('is delivered, and reads German texts: loaded onto the vehicle is out for delivery', () => {
    expect(s).toMatchObject({ standardStatus: 'delivered', milestone: 'delivered', carrierStatus: 'Die Sendung wurde zugestellt.' })
    expect(s.events.find((e) => e.description.startsWith('Die Sendung wurde in das Zustellfahrzeug geladen'))!.milestone).toBe('out_for_delivery')
    expect(s.events.find((e) => e.description.startsWith('Die Sendung wurde elektronisch angekündigt'))!.milestone).toBe('info_received')
  })

  it('reads its local times in Germany (CET in March)', () => {
    expect(s.events.at(-1)!.eventTime.toISOString()).toBe('2023-03-13T08:50:00.000Z')
  })

  it('finds a shipment by a piece id written without its check digit', () => {
    const answer = fixture('response-parcel-de-delivered-real-de.json') as { shipments: Record<string, unknown>[] }
    const other = { ...answer.shipments[0], id: 'SOMETHING-ELSE' }
    expect(pickShipment('470800204932', [{ id: 'X', events: [] }, other])).toBe(other)
  })
})

describe('a real DHL Paket return (2026)', () => {
  const s = found('00340434123456789012', fixture('response-parcel-de-returned-sanitized-2026.json'))

  it('is returned: its last event says delivered, returnFlag says to the sender', () => {
    expect(s).toMatchObject({ standardStatus: 'returned', milestone: 'returned', rawStatusCode: 'DLVRD_NGHBR_ZU' })
  })

  it('makes the delivered event itself the return: no event says delivered', () => {
    expect(s.events.filter((e) => e.status === 'delivered' || e.milestone === 'delivered')).toEqual([])
    // The newest event in DHL's order (the file's recorded times do not run with it).
    expect(s.events.find((e) => e.eventCode === 'DLVRD_NGHBR_ZU')).toMatchObject({ status: 'returned', milestone: 'returned' })
  })

  it('reads statusDetailed before the two-letter status: a return apart from a failed delivery', () => {
    const milestoneOf = (code: string) => s.events.find((e) => e.eventCode === code)!.milestone
    expect(milestoneOf('RETRN_CNCNR_ZN')).toBe('returned')
    expect(milestoneOf('NTDEL_CPUNK_ZN')).toBe('exception')
    expect(milestoneOf('SRTED_NRQRD_PO')).toBe('out_for_delivery')
  })

  it('keeps the offsets DHL wrote', () => {
    expect(s.events.every((e) => e.utcOffset === '+00:00')).toBe(true)
  })
})

describe("DHL's OpenAPI example, which contradicts itself", () => {
  it('is read without failing, and its ETA window taken', () => {
    const s = found('7777777770', fixture('response-openapi-example.json'))
    expect(s.estimatedDeliveryAt?.toISOString()).toBe('2018-08-03T22:00:00.000Z')
    expect(s.originAddress).toMatchObject({ country: 'NL', postalCode: '1043 AG' })
  })

  it('reads a time ending in Z as one DHL gave with its offset: +00:00', () => {
    const zulu = JSON.parse(JSON.stringify(fixture('response-parcel-de-returned-sanitized-2026.json')).replaceAll('+00:00"', 'Z"'))
    const s = found('00340434123456789012', zulu)
    expect(s.events.length).toBeGreaterThan(0)
    expect(s.events.map((e) => e.utcOffset)).toEqual(s.events.map(() => '+00:00'))
  })
})

describe('places and their time zones', () => {
  it.each([
    [{ addressLocality: 'KARACHI - KARACHI - PAKISTAN' }, 'Asia/Karachi'],
    [{ addressLocality: 'CINCINNATI HUB, OH - USA' }, 'America/New_York'],
    [{ addressLocality: 'SOUTHERN ALBERTA, AB - CANADA' }, 'America/Edmonton'],
    [{ addressLocality: 'Deutschland' }, 'Europe/Berlin'],
    [{ countryCode: 'DE', addressLocality: 'Bonn' }, 'Europe/Berlin'],
    [{ addressLocality: 'CALGARY' }, undefined],
    [{ addressLocality: 'SOMEWHERE - USA' }, undefined],
  ])('%j is in %s', (place, zone) => {
    expect(zoneOf(place)).toBe(zone)
  })

  it('turns a wall-clock time into UTC across a change of offset', () => {
    expect(localToUtc('2026-03-29T01:30:00', 'Europe/Berlin').toISOString()).toBe('2026-03-29T00:30:00.000Z')
    expect(localToUtc('2026-03-29T03:30:00', 'Europe/Berlin').toISOString()).toBe('2026-03-29T01:30:00.000Z')
  })
})

describe('the code tables', () => {
  type Entry = { milestone: Milestone; standardStatus: string; ignoreForStatus?: boolean }
  const kit = fixture('status-codes.json') as {
    statusCodes: Record<string, Entry>
    parcelDeStatusDetailed: Record<string, Entry | string>
    serviceEventCodes: Record<string, Record<string, Entry | string>>
  }
  const rows = (table: Record<string, Entry | string>) => Object.entries(table).filter(([k]) => !k.startsWith('_')) as [string, Entry][]
  const same = (ours: [Milestone, number, ...unknown[]] | undefined, entry: Entry) => {
    expect(ours?.[0]).toBe(entry.milestone)
    expect(MILESTONES[entry.milestone]).toBe(entry.standardStatus)
    expect(ours?.[1]).toBe(entry.ignoreForStatus ? 0 : 1)
  }

  it('hold every statusCode and every parcel-de statusDetailed as the kit maps them', () => {
    for (const [code, entry] of rows(kit.statusCodes as Record<string, Entry>)) same(DHL_CODE_TABLES.statusCodes[code], entry)
    const detailed = rows(kit.parcelDeStatusDetailed)
    expect(detailed.length).toBe(338)
    for (const [code, entry] of detailed) same(DHL_CODE_TABLES.statusDetailed[code], entry)
  })

  it('hold every per-service event code as the kit maps it', () => {
    let count = 0
    for (const [service, table] of Object.entries(kit.serviceEventCodes).filter(([k]) => !k.startsWith('_'))) {
      const ours = DHL_CODE_TABLES.services[service === 'expressCodesNotInDhlList' ? 'express' : service]!
      for (const [code, entry] of rows(table)) {
        same(ours[code], entry)
        count++
      }
    }
    expect(count).toBeGreaterThan(1000)
  })

  it('read eCommerce texts in status as their code, and an unknown parcel-de statusDetailed by its last part', () => {
    expect(dhlMeaning('ecommerce', { statusCode: 'transit', status: 'PICKED UP FROM SENDER', statusDetailed: '', description: '', remark: '' })).toEqual({
      status: 'in_transit',
      milestone: 'in_transit',
    })
    expect(dhlMeaning('parcel-de', { statusCode: 'transit', status: 'PO', statusDetailed: 'NEWEV_NEWRS_PO', description: '', remark: '' })).toEqual({
      status: 'in_transit',
      milestone: 'out_for_delivery',
    })
    expect(dhlMeaning('parcel-de', { statusCode: 'unknown', status: 'DD', statusDetailed: '', description: '', remark: '' })).toBe('no_change')
  })
})
