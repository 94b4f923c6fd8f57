import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { isTrackingAnswer, mapTrackingAnswer } from './uparcel.format'
import { uparcelStandardStatus } from './uparcel.statuses'

const answer = JSON.parse(readFileSync(new URL('../../../test/fixtures/carriers/uparcel/tracking-answer.json', import.meta.url), 'utf8'))

describe('uParcel format', () => {
  it('maps a parcel: status, ETA with its +08:00 offset, pickup and delivery, events ascending', () => {
    const lookup = mapTrackingAnswer(answer).get('UP2411220001')
    if (!lookup?.found) throw new Error('expected a found lookup')
    expect(lookup.snapshot).toMatchObject({
      rawStatusCode: 'IN_TRANSIT',
      standardStatus: 'in_transit',
      carrierStatus: 'In Transit',
      originAddress: { country: 'SG', state: '', city: 'Singapore', postalCode: '519498', address: '1 Pasir Ris Dr 3' },
      destinationAddress: { country: 'SG', state: '', city: 'Singapore', postalCode: '079903', address: '10 Anson Rd #12-01' },
    })
    expect(lookup.snapshot.estimatedDeliveryAt?.toISOString()).toBe('2026-11-22T10:00:00.000Z')
    expect(lookup.snapshot.events.map((e) => [e.eventTime.toISOString(), e.eventCode, e.status, e.statusInfo])).toEqual([
      ['2026-11-22T01:12:00.000Z', 'ASSIGNED', 'pending', 'Agent Assigned'],
      ['2026-11-22T02:40:00.000Z', 'PICKED_UP', 'in_transit', 'Picked Up'],
    ])
  })

  it('reads not_found numbers', () => {
    expect(mapTrackingAnswer(answer).get('UP0000000000')).toEqual({ found: false, reason: 'not_found' })
  })

  it('keeps an absent or null estimated delivery as null', () => {
    const parcel = { ...answer.data.parcels[0], estimated_delivery: null }
    const lookup = mapTrackingAnswer({ ...answer, data: { parcels: [parcel] } }).get('UP2411220001')
    expect(lookup?.found && lookup.snapshot.estimatedDeliveryAt).toBeNull()
  })

  it('maps every documented status code, and unknown codes to null', () => {
    expect(['POSTED', 'PICKED_UP', 'OUT_FOR_DELIVERY', 'DELIVERED', 'ON_HOLD', 'RETURNED', 'CANCELLED'].map(uparcelStandardStatus)).toEqual([
      'pending',
      'in_transit',
      'in_transit',
      'delivered',
      'exception',
      'returned',
      'cancelled',
    ])
    expect(uparcelStandardStatus('TELEPORTED')).toBeNull()
  })

  it('recognises only a SUCCESS envelope with parcels as a tracking answer', () => {
    expect(isTrackingAnswer(answer)).toBe(true)
    expect(isTrackingAnswer({ result: 'FAILED', errors: ['x'], status: 401 })).toBe(false)
    expect(isTrackingAnswer({ result: 'SUCCESS', data: {} })).toBe(false)
  })
})
