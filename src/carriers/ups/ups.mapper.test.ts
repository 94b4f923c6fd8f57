import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { MILESTONES, type Milestone } from '../../domain/milestones'
import { lookupFromAnswer } from './ups.mapper'
import { UPS_CODE_TEXT, UPS_NO_STATUS, UPS_STATUSES } from './ups.statuses'

// UPS's recorded answers (test/fixtures/carriers/ups: a real production answer, UPS's Postman and
// OpenAPI examples, the not-found answer) and its status-code table.
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../../test/fixtures/carriers/ups/${name}`, import.meta.url), 'utf8'))

function found(number: string, body: unknown) {
  const lookup = lookupFromAnswer(number, body)
  if (!lookup?.found) throw new Error(`expected ${number} to be found`)
  return lookup.snapshot
}

describe('a real delivered answer', () => {
  const snapshot = found('1Z81WV380316886897', fixture('response-delivered-real.json'))

  it('is delivered, from the three-digit code of the first activity', () => {
    expect(snapshot).toMatchObject({ rawStatusCode: '011', standardStatus: 'delivered', milestone: 'delivered', carrierStatus: 'DELIVERED' })
  })

  it('keeps all ten activities, sorted by their UTC time, the label first although UPS lists it last', () => {
    expect(snapshot.events).toHaveLength(10)
    const times = snapshot.events.map((e) => e.eventTime.getTime())
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(snapshot.events[0]).toMatchObject({ eventCode: '005', description: 'Departed from Facility' })
    expect(snapshot.events[0]!.eventTime.toISOString()).toBe('2024-02-01T01:15:00.000Z')
    expect(snapshot.events.find((e) => e.eventCode === '003')!.eventTime.toISOString()).toBe('2024-02-01T01:34:05.000Z')
    expect(snapshot.events.at(-1)).toMatchObject({
      eventCode: '011',
      status: 'delivered',
      milestone: 'delivered',
      statusInfo: 'Delivered',
      description: 'DELIVERED',
      city: 'NEWARK',
      state: 'CA',
      country: 'US',
    })
    expect(snapshot.events.at(-1)!.eventTime.toISOString()).toBe('2024-02-02T20:04:35.000Z')
    expect(snapshot.events.at(-1)!.utcOffset).toBe('-08:00')
  })

  it('gives out-for-delivery its milestone, the UPS way: by 021 and 072, whatever the type says', () => {
    const codes = Object.fromEntries(snapshot.events.map((e) => [e.eventCode, e.milestone]))
    expect(codes).toMatchObject({ '021': 'out_for_delivery', '072': 'out_for_delivery', '071': 'in_transit', '003': 'info_received' })
  })

  it('reads where the delivery was left as its proof (no signature asked for, no document)', () => {
    expect(snapshot.proofOfDelivery).toEqual({ signedBy: '', location: 'Delivery Photo', signatureAvailable: false, documentUrl: null })
  })

  it('reads the origin and destination, and no ETA from a DEL date', () => {
    expect(snapshot.originAddress).toMatchObject({ city: 'SALEM', state: 'OR', country: 'US' })
    expect(snapshot.destinationAddress).toMatchObject({ city: 'NEWARK', state: 'CA', country: 'US' })
    expect(snapshot.estimatedDeliveryAt).toBeNull()
  })
})

describe("UPS's examples", () => {
  it('reads times without gmt fields as local date and time (the Postman example)', () => {
    const snapshot = found('1Z1442YY7229014688', fixture('response-postman-success.json'))
    expect(snapshot.standardStatus).toBe('delivered')
    expect(snapshot.events.map((e) => [e.eventCode, e.eventTime.toISOString()])).toEqual([
      ['003', '2022-01-26T15:16:41.000Z'],
      ['011', '2022-01-26T16:30:00.000Z'],
    ])
  })

  it('survives the OpenAPI example: placeholders skipped, the package found under its inquiry number', () => {
    const lookup = lookupFromAnswer('1Z023E2X0214323462', fixture('response-openapi-example.json'))
    expect(lookup).toMatchObject({ found: true })
    if (!lookup?.found) return
    expect(lookup.snapshot.estimatedDeliveryAt).toBeNull()
    // statusCode 003 says "label created", whatever its type X and its "Delivered" text claim.
    expect(lookup.snapshot.standardStatus).toBe('pending')
  })

  it('answers not found for TW0001 and for an unknown answer nothing', () => {
    expect(lookupFromAnswer('1Z5629230309413682', fixture('response-not-found.json'))).toEqual({ found: false, reason: 'TW0001' })
    expect(lookupFromAnswer('1Z5629230309413682', { trackResponse: { shipment: [{}] } })).toBeUndefined()
  })
})

describe('gmtTime forms and the ETA', () => {
  const answer = (activity: Record<string, unknown>, pkg: Record<string, unknown> = {}) => ({
    trackResponse: {
      shipment: [
        {
          package: [
            {
              trackingNumber: '1ZTEST',
              activity: [{ status: { statusCode: '005', description: 'On the Way ' }, date: '20240201', time: '211500', ...activity }],
              ...pkg,
            },
          ],
        },
      ],
    },
  })

  it.each([
    [{ gmtDate: '20240202', gmtTime: '05:15:00' }, '2024-02-02T05:15:00.000Z'],
    [{ gmtDate: '20240202', gmtTime: '51500' }, '2024-02-02T05:15:00.000Z'],
    [{ gmtDate: '20240202', gmtTime: '051500' }, '2024-02-02T05:15:00.000Z'],
    [{ gmtOffset: '-08:00' }, '2024-02-02T05:15:00.000Z'],
    [{}, '2024-02-01T21:15:00.000Z'],
  ])('reads %j as %s', (fields, iso) => {
    expect(found('1ZTEST', answer(fields)).events[0]!.eventTime.toISOString()).toBe(iso)
  })

  it('skips an activity whose time cannot be read', () => {
    expect(found('1ZTEST', answer({ date: 'string', time: 'string' })).events).toEqual([])
  })

  it('takes RDD over SDD, at the window end, in the activity offset; without either the ETA stays', () => {
    const pkg = {
      deliveryDate: [
        { type: 'SDD', date: '20240205' },
        { type: 'RDD', date: '20240206' },
      ],
      deliveryTime: { type: 'EOD', endTime: '200000' },
    }
    expect(found('1ZTEST', answer({ gmtOffset: '-05:00' }, pkg)).estimatedDeliveryAt?.toISOString()).toBe('2024-02-07T01:00:00.000Z')
    expect(found('1ZTEST', answer({}, { deliveryDate: [{ type: 'SDD', date: '20240205' }] })).estimatedDeliveryAt?.toISOString()).toBe(
      '2024-02-05T23:59:59.000Z',
    )
    expect(found('1ZTEST', answer({})).estimatedDeliveryAt).toBeNull()
  })

  it('keeps the previous status for an ETA update and an unknown code, and takes the next activity for the first', () => {
    const body = (codes: string[]) => ({
      trackResponse: {
        shipment: [
          { package: [{ trackingNumber: '1ZTEST', activity: codes.map((statusCode) => ({ status: { statusCode }, date: '20240201', time: '120000' })) }] },
        ],
      },
    })
    expect(found('1ZTEST', body(['153', '021'])).milestone).toBe('out_for_delivery')
    expect(found('1ZTEST', body(['999', '021'])).standardStatus).toBeNull()
  })
})

describe("UPS's status-code table", () => {
  const table = (
    fixture('status-codes.json') as { codes: Record<string, { standardStatus: string; milestone: Milestone; ignoreForStatus?: boolean; description: string }> }
  ).codes

  it('maps every one of the 160 codes as the kit says', () => {
    expect(Object.keys(table)).toHaveLength(160)
    for (const [code, entry] of Object.entries(table)) {
      expect(UPS_CODE_TEXT[code], code).toBe(entry.description)
      if (entry.ignoreForStatus) {
        expect(UPS_NO_STATUS.has(code), code).toBe(true)
        continue
      }
      expect(UPS_STATUSES.meaning(code), code).toEqual({ status: entry.standardStatus, milestone: entry.milestone })
      expect(MILESTONES[entry.milestone]).toBe(entry.standardStatus)
    }
  })

  it('has the milestones the spec names', () => {
    for (const code of ['021', '072']) expect(UPS_STATUSES.meaning(code)?.milestone).toBe('out_for_delivery')
    for (const code of ['017', '040', '144', '161']) expect(UPS_STATUSES.meaning(code)?.milestone).toBe('available_for_pickup')
    for (const code of ['022', '023', '024', '060']) expect(UPS_STATUSES.meaning(code)?.milestone).toBe('failed_attempt')
  })
})
