import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CarrierSnapshot } from '../../../domain/tracking-update'
import { lookupFromAnswer, upsEventKey } from '../ups.mapper'
import { alertToken, grantAlertToken, verifyAlertPush } from './ups-alert.auth'
import { readAlertEvent } from './ups-alert.mapper'

// UPS Track Alert's published events (test/fixtures/carriers/ups/track-alert: the v1 and v2
// examples, a CIE event, a maintainer's sample) and the kit's mapping onto the Track API's table.
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../../../test/fixtures/carriers/ups/track-alert/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>
const v1Examples = (fixture('push-events-v1-official-examples.json').examples as { id: string; body: Record<string, unknown> }[]).map((e) => e.body)

function read(body: unknown): { trackingNumber: string; snapshot: CarrierSnapshot } {
  const event = readAlertEvent(body)
  if (!event?.lookup.found) throw new Error('expected an event')
  return { trackingNumber: event.trackingNumber, snapshot: event.lookup.snapshot }
}

describe('a UPS Track Alert event', () => {
  it('maps each of the kit’s examples by its descriptionCode through the Track API’s table', () => {
    const mapping = fixture('status-mapping.json').seenInPushBodies as { code: string; descriptionCode: string; standardStatus: string; milestone: string }[]
    for (const body of v1Examples) {
      const { snapshot } = read(body)
      const status = body.activityStatus as { code: string; descriptionCode: string }
      const expected = mapping.find((m) => m.code === status.code && m.descriptionCode === status.descriptionCode)!
      expect(snapshot).toMatchObject({ rawStatusCode: expected.descriptionCode, standardStatus: expected.standardStatus, milestone: expected.milestone })
      expect(snapshot.events).toHaveLength(1)
      expect(snapshot.events[0]).toMatchObject({ eventCode: expected.descriptionCode, milestone: expected.milestone })
    }
  })

  it('trims and upper-cases the number (UPS’s first example starts with a space)', () => {
    expect(read(v1Examples[0]).trackingNumber).toBe('1ZABCXYZ0112346789')
  })

  it('places the event at its GMT date and time, never at an offset derived from the local pair', () => {
    // Local 2024-04-22 21:29:01, GMT 2024-04-23 01:29:01: the GMT date is the next day.
    const { snapshot } = read(v1Examples[1])
    expect(snapshot.events[0]!.eventTime.toISOString()).toBe('2024-04-23T01:29:01.000Z')
    expect(snapshot.events[0]!.utcOffset).toBeNull()
    // The spec's gmtOffset, written with a dot, is read when given.
    const withOffset = read({ ...v1Examples[1], gmtOffset: '-04.00' }).snapshot.events[0]!
    expect(withOffset.utcOffset).toBe('-04:00')
  })

  it('reads descriptionCode written as a number (a YAML loader’s 21) or missing (the two-character code, then the type)', () => {
    const ofd = fixture('push-event-out-for-delivery-v2-official.json')
    const status = ofd.activityStatus as Record<string, unknown>
    expect(read({ ...ofd, activityStatus: { ...status, descriptionCode: 21 } }).snapshot).toMatchObject({ rawStatusCode: '021', milestone: 'out_for_delivery' })
    const sample = read(fixture('push-event-on-the-way-maintainer-sample.json')).snapshot
    expect(sample).toMatchObject({ rawStatusCode: '005', standardStatus: 'in_transit', milestone: 'in_transit' })
    const byType = read({ ...ofd, activityStatus: { type: 'X', code: 'ZZ', description: 'Something happened' } }).snapshot
    expect(byType).toMatchObject({ rawStatusCode: 'X/ZZ', standardStatus: 'exception', milestone: 'exception', carrierStatus: 'Something happened' })
    expect(byType.events[0]).toMatchObject({ eventCode: '', status: 'exception', milestone: 'exception' })
  })

  it('moves no status for an update (type U), and takes its scheduled date as the estimate', () => {
    const { snapshot } = read({
      ...v1Examples[1],
      activityStatus: { type: 'U', code: 'UD', description: 'Delivery date updated' },
      scheduledDeliveryDate: '20240425',
    })
    expect(snapshot).toMatchObject({ standardStatus: null, milestone: null })
    expect(snapshot.estimatedDeliveryAt!.toISOString()).toBe('2024-04-25T23:59:59.000Z')
  })

  it('ignores the years-old scheduled date of a delivered event, and keeps who received it as the proof', () => {
    const { snapshot } = read(fixture('push-event-delivered-v2-official.json'))
    expect(snapshot).toMatchObject({ standardStatus: 'delivered', milestone: 'delivered', estimatedDeliveryAt: null })
    expect(snapshot.proofOfDelivery).toMatchObject({ signedBy: 'Morgan' })
    expect(read(fixture('push-event-delivered-cie-pipedream.json')).snapshot).toMatchObject({ standardStatus: 'delivered', proofOfDelivery: null })
  })

  it('has the identity of the Track API activity of the same scan (time and code), whatever the texts and the postal code', () => {
    const pushed = read(fixture('push-event-out-for-delivery-v2-official.json')).snapshot.events[0]!
    const polled = lookupFromAnswer('1Z204W4R0308071865', {
      trackResponse: {
        shipment: [
          {
            package: [
              {
                trackingNumber: '1Z204W4R0308071865',
                activity: [
                  {
                    location: { address: { city: 'CHARLOTTE', stateProvince: 'NC', countryCode: 'US' } },
                    status: { type: 'I', code: 'OT', description: 'Out For Delivery Today ', statusCode: '021' },
                    date: '20240423',
                    time: '091519',
                    gmtDate: '20240423',
                    gmtTime: '13:15:19',
                    gmtOffset: '-04:00',
                  },
                ],
              },
            ],
          },
        ],
      },
    })
    expect(polled?.found && polled.snapshot.events[0]!.key).toBe(pushed.key)
    expect(pushed.key).toBe(upsEventKey(new Date('2024-04-23T13:15:19Z'), '021'))
  })

  it('names no number for a body without one (ignored), and never throws on garbage', () => {
    expect(readAlertEvent({ activityStatus: { type: 'I' } })).toBeNull()
    for (const garbage of [null, 42, 'x', [], { trackingNumber: 7 }, { trackingNumber: '1Z', activityStatus: 'D', gmtActivityDate: 5 }]) {
      expect(() => readAlertEvent(garbage)).not.toThrow()
    }
  })
})

describe('how UPS’s pushes are authenticated', () => {
  const settings = { version: 'v2', secret: 's'.repeat(40), clientId: 'our-client', callbackUrl: 'https://track.example/inbound/ups' }
  const now = Date.parse('2026-03-02T08:00:00Z')
  const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` })
  const grant = Buffer.from('grant_type=client_credentials')

  it('v1: the secret echoed in the credential header (or as a bearer), nothing else', () => {
    expect(verifyAlertPush({ credential: settings.secret }, settings, now)).toBe(true)
    expect(verifyAlertPush({ authorization: `Bearer ${settings.secret}` }, settings, now)).toBe(true)
    expect(verifyAlertPush({ credential: `${settings.secret}x` }, settings, now)).toBe(false)
    expect(verifyAlertPush({}, settings, now)).toBe(false)
    expect(verifyAlertPush({ credential: '' }, { ...settings, secret: '' }, now)).toBe(false)
  })

  it('v2: a token of ours, granted for our client id and secret, presented with our client id until it expires', () => {
    expect(grantAlertToken(basic('our-client', 'wrong'), grant, settings, now)).toBeNull()
    expect(grantAlertToken(basic('their-client', settings.secret), grant, settings, now)).toBeNull()
    expect(grantAlertToken(basic('our-client', settings.secret), Buffer.from('grant_type=password'), settings, now)).toBeNull()
    expect(grantAlertToken({ authorization: 'Basic %%%' }, grant, settings, now)).toBeNull()
    const token = grantAlertToken(basic('our-client', settings.secret), grant, settings, now)!
    expect(token.expiresIn).toBe(3600)
    const headers = { authorization: `Bearer ${token.accessToken}`, 'x-api-key': 'our-client' }
    expect(verifyAlertPush(headers, settings, now)).toBe(true)
    expect(verifyAlertPush(headers, settings, now + 3_599_000)).toBe(true)
    expect(verifyAlertPush(headers, settings, now + 3_601_000)).toBe(false)
    expect(verifyAlertPush({ ...headers, 'x-api-key': 'their-client' }, settings, now)).toBe(false)
    expect(verifyAlertPush(headers, { ...settings, secret: 't'.repeat(40) }, now)).toBe(false)
    const [expiry] = token.accessToken.split('.')
    expect(verifyAlertPush({ ...headers, authorization: `Bearer ${Number(expiry) + 3600}.${token.accessToken.split('.')[1]}` }, settings, now)).toBe(false)
    expect(alertToken(settings.secret, now)).toBe(token.accessToken)
  })
})
