import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CARRIERS } from '../registry'
import { SEVENTEENTRACK_CARRIERS } from './seventeentrack.carriers'
import { lookupsFromTrackInfo, readPush, recordKey, snapshotFromTrackInfo } from './seventeentrack.mapper'
import { latestStatusMeaning, SEVENTEENTRACK_KEY_STAGES, SEVENTEENTRACK_MAIN_STATUSES, SEVENTEENTRACK_SUB_STATUSES } from './seventeentrack.statuses'

const kit = (name: string) => readFileSync(new URL(`../../../test/fixtures/carriers/17track/${name}`, import.meta.url), 'utf8')
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the kit's JSON, read field by field
const json = (name: string) => JSON.parse(kit(name)) as Record<string, any>

describe('17TRACK statuses', () => {
  const table = json('status-codes.json')

  it('maps every main status, sub-status and key stage of the kit as the kit says (NotFound moves nothing)', () => {
    expect(SEVENTEENTRACK_MAIN_STATUSES.sort()).toEqual(Object.keys(table.mainStatuses).sort())
    expect(SEVENTEENTRACK_SUB_STATUSES.filter((s) => s !== 'Exception_Damaged').sort()).toEqual(Object.keys(table.subStatuses).sort())
    expect(SEVENTEENTRACK_KEY_STAGES.sort()).toEqual(Object.keys(table.keyStages).sort())
    for (const [name, entry] of Object.entries<{
      main: string
      standardStatus: string
      milestone: string
      ignoreForStatus?: boolean
      keepPreviousMilestone?: boolean
    }>(table.subStatuses)) {
      const meaning = latestStatusMeaning(entry.main, name)
      if (entry.ignoreForStatus) expect(meaning, name).toBeNull()
      else expect(meaning?.status, name).toBe(entry.standardStatus)
      // Expired keeps no milestone of its own in the kit; the service's milestone of expiry is "expired".
      if (!entry.ignoreForStatus && !entry.keepPreviousMilestone) expect(meaning?.milestone, name).toBe(entry.milestone)
    }
  })

  it('falls back to the main status for a sub-status it does not know, and reads Exception_Damaged as Exception_Damage', () => {
    expect(latestStatusMeaning('Delivered', 'Delivered_ByDrone')).toEqual({ status: 'delivered', milestone: 'delivered' })
    expect(latestStatusMeaning('Exception', 'Exception_Damaged')).toEqual(latestStatusMeaning('Exception', 'Exception_Damage'))
    expect(latestStatusMeaning('Teleported', '')).toBeNull()
  })
})

describe('17TRACK carriers', () => {
  it('serves every carrier of the kit: by a plugin of ours, or through 17TRACK under its own code and key', () => {
    const ours = new Set(CARRIERS.map((c) => c.code.toLowerCase()))
    const routedKeys = new Set(SEVENTEENTRACK_CARRIERS.map((c) => c.key))
    for (const carrier of json('carriers.json').carriers) {
      const byPlugin = carrier.service !== undefined && carrier.service !== null && ours.has(carrier.service)
      expect(byPlugin || routedKeys.has(carrier.key), carrier.name).toBe(true)
      expect(byPlugin && routedKeys.has(carrier.key), `${carrier.name} served twice`).toBe(false)
    }
  })

  it('gives each routed carrier a code of its own, never a plugin’s', () => {
    const codes = SEVENTEENTRACK_CARRIERS.map((c) => c.code)
    expect(new Set(codes).size).toBe(codes.length)
    for (const code of codes) expect(code).toMatch(/^[A-Z][A-Z0-9]*$/)
    for (const plugin of CARRIERS) expect(codes).not.toContain(plugin.code)
    for (const wanted of ['ROYALMAIL', 'POSTNL', 'DPD', 'AUSTRALIAPOST', 'JAPANPOST', 'CHINAPOST']) expect(codes).toContain(wanted)
  })
})

describe('17TRACK track_info', () => {
  it('reads the official push example: the current status from latest_status, events oldest first, instants from time_utc, local times kept', () => {
    const push = readPush(json('push-tracking-updated-official-example.json'))!
    expect(push).toMatchObject({ event: 'TRACKING_UPDATED', trackingNumber: '1Z2617V10397725789', carrierKey: 3011 })
    if (!push.lookup?.found) throw new Error('expected a snapshot')
    const snapshot = push.lookup.snapshot
    expect(snapshot).toMatchObject({ rawStatusCode: 'Delivered_Other', standardStatus: 'delivered', milestone: 'delivered', carrierStatus: 'DELIVERED' })
    expect(snapshot.events.map((e) => e.eventTime.toISOString())).toEqual([
      '2022-03-29T05:43:08.000Z',
      '2022-03-31T23:36:47.000Z',
      '2022-04-02T09:15:00.000Z',
      '2022-04-04T15:46:06.000Z',
      '2022-04-04T23:35:22.000Z',
    ])
    expect(snapshot.events.map((e) => e.utcOffset)).toEqual(['-07:00', '-07:00', '-07:00', '-07:00', '-07:00'])
    expect(snapshot.events.map((e) => e.milestone)).toEqual(['info_received', '', '', 'out_for_delivery', 'delivered'])
    expect(snapshot.events.at(-1)).toMatchObject({ city: 'GASQUET', state: 'CA', country: 'US', description: 'DELIVERED' })
    expect(snapshot.originAddress).toMatchObject({ country: 'US', state: 'CA', city: 'CITY OF INDUSTRY' })
    // Delivered: no estimate.
    expect(snapshot.estimatedDeliveryAt).toBeNull()
  })

  it('takes the DHL Paket push’s status from latest_status (Exception_Other), not from its only event (available for pick-up), and keeps its offset as written', () => {
    const push = readPush(json('push-tracking-updated-dhl-paket-uncollected-exception.json'))!
    if (!push.lookup?.found) throw new Error('expected a snapshot')
    expect(push.lookup.snapshot).toMatchObject({ standardStatus: 'exception', milestone: 'exception' })
    const [event] = push.lookup.snapshot.events
    expect(event).toMatchObject({ milestone: 'available_for_pickup', utcOffset: '+01:00' })
  })

  it('merges the providers of a gettrackinfo answer (origin and last mile) in time order, each scan once, with the end of the ETA window', () => {
    const answer = json('response-gettrackinfo-docs-shape-secondary.json')
    const [element] = answer.data.accepted
    const lookups = lookupsFromTrackInfo([recordKey(element.carrier, element.number)], answer.data)
    const lookup = lookups.get(recordKey(element.carrier, element.number))!
    if (!lookup.found) throw new Error('expected a snapshot')
    const times = lookup.snapshot.events.map((e) => e.eventTime.getTime())
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(new Set(lookup.snapshot.events.map((e) => e.key)).size).toBe(lookup.snapshot.events.length)
    expect(lookup.snapshot.events.map((e) => e.utcOffset)).toEqual(expect.arrayContaining(['+08:00', '-04:00']))
  })

  it('keeps two scans of the same second that say different things', () => {
    const event = (description: string) => ({ time_utc: '2026-03-02T10:00:00Z', time_iso: '2026-03-02T10:00:00+00:00', description, location: 'London' })
    const snapshot = snapshotFromTrackInfo({
      latest_status: { status: 'InTransit', sub_status: 'InTransit_Other' },
      tracking: { providers: [{ events: [event('Sorted'), event('Departed')] }, { events: [event('Sorted')] }] },
    })
    expect(snapshot.events.map((e) => e.description).sort()).toEqual(['Departed', 'Sorted'])
  })

  it('answers every record of a rejected number, "nothing yet" by its code, and leaves out what it was not asked', () => {
    const asked = [recordKey(11031, 'AB123456789GB'), recordKey(14041, '3SABC1234567')]
    const lookups = lookupsFromTrackInfo(asked, {
      accepted: [{ number: 'ZZ999', carrier: 11031, track_info: {} }],
      rejected: [
        { number: 'AB123456789GB', error: { code: -18019909, message: 'No tracking info at the moment.' } },
        { number: '3SABC1234567', error: { code: -18019902, message: 'not registered' } },
      ],
    })
    expect([...lookups.keys()].sort()).toEqual([...asked].sort())
    expect(lookups.get(asked[0]!)).toEqual({ found: false, reason: 'registered at 17TRACK, no tracking information yet' })
    expect(lookups.get(asked[1]!)).toEqual({ found: false, reason: 'not registered at 17TRACK yet' })
  })

  it('reads a TRACKING_STOPPED push and refuses what names no number', () => {
    const stopped = JSON.parse(json('push-signature.json').examples[0].rawBody)
    expect(readPush(stopped)).toEqual({ event: 'TRACKING_STOPPED', trackingNumber: 'RR123456789CN', carrierKey: 3011 })
    expect(readPush({ event: 'TRACKING_UPDATED', data: {} })).toBeNull()
    expect(readPush('[1,2]')).toBeNull()
  })
})
