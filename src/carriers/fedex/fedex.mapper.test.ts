import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { alertsOf, fedexStandardStatus, mapTrackResponse } from './fedex.mapper'

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../../test/fixtures/carriers/fedex/${name}`, import.meta.url), 'utf8'))

describe('FedEx mapping of real responses', () => {
  it('maps a Ground delivery: status, ETA, addresses, and every scan ascending by time', () => {
    const lookups = mapTrackResponse(fixture('response-ground-delivered.json'))
    const lookup = lookups.get('738488882438')
    if (!lookup?.found) throw new Error('expected a found lookup')
    const s = lookup.snapshot
    expect(s).toMatchObject({ rawStatusCode: 'DL', standardStatus: 'delivered', carrierStatus: 'Delivered' })
    // No ESTIMATED_DELIVERY, an empty estimated window, no COMMITMENT: the standard transit window.
    expect(s.estimatedDeliveryAt?.toISOString()).toBe('2024-08-21T06:00:00.000Z')
    expect(s.originAddress).toEqual({ country: 'US', state: 'MN', city: 'NORTH MANKATO', postalCode: '', address: '' })
    expect(s.destinationAddress).toEqual({ country: 'US', state: 'NY', city: 'Blue Point', postalCode: '', address: '' })
    const times = s.events.map((e) => e.eventTime.getTime())
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(s.events).toHaveLength(17)
    // A date without an offset is read as UTC, not as the machine's local time.
    const pickup = s.events.find((e) => e.eventCode === 'PU')!
    expect(pickup.eventTime.toISOString()).toBe('2024-08-15T00:00:00.000Z')
    // Its offset is not guessed; the others carry FedEx's.
    expect(pickup.utcOffset).toBeNull()
    expect(s.events.at(-1)).toEqual({
      eventTime: new Date('2024-08-20T16:41:57.000Z'),
      eventCode: 'DL',
      status: 'delivered',
      statusInfo: 'Delivered',
      description: 'Delivered',
      exceptionDescription: '',
      country: 'US',
      state: 'NY',
      city: 'Blue Point',
      postalCode: '11715',
      address: '',
      milestone: 'delivered',
      key: expect.any(String),
      utcOffset: '-04:00',
    })
    // Out for delivery is IT, label created is IN: mapped through derivedStatusCode.
    expect(s.events.find((e) => e.eventCode === 'OD')!.status).toBe('in_transit')
    expect(s.events.find((e) => e.eventCode === 'OC')!.status).toBe('pending')
    expect(new Set(s.events.map((e) => e.key)).size).toBe(17)
  })

  it('reads the proof of a delivery: who received it, and that FedEx holds a signature', () => {
    const lookup = mapTrackResponse(fixture('response-ground-delivered.json')).get('738488882438')
    expect(lookup?.found && lookup.snapshot.proofOfDelivery).toEqual({ signedBy: 'CREILLY', location: '', signatureAvailable: true, documentUrl: null })
    // In transit, FedEx's deliveryDetails are no proof of anything.
    const running = mapTrackResponse(fixture('response-docs-sample.json')).get('123456789012')
    expect(running?.found && running.snapshot.proofOfDelivery).toBeNull()
  })

  it('picks the trackResult with the newest scan for a reused number', () => {
    const lookup = mapTrackResponse(fixture('response-duplicate-number-exceptions.json')).get('776094337676')
    if (!lookup?.found) throw new Error('expected a found lookup')
    expect(lookup.snapshot).toMatchObject({ standardStatus: 'delivered', carrierStatus: 'Delivered' })
    expect(lookup.snapshot.events.at(-1)!.eventTime.toISOString()).toBe('2024-04-26T16:26:00.000Z')
    const exception = lookup.snapshot.events.find((e) => e.eventCode === 'DE')!
    expect(exception).toMatchObject({ status: 'exception', exceptionDescription: expect.stringMatching(/redirected|not available/) })
  })

  it('maps a running-late shipment (derivedCode RL, code FD) to in_transit with its own text', () => {
    const body = fixture('response-duplicate-number-exceptions.json')
    body.output.completeTrackResults[0].trackResults.pop()
    const lookup = mapTrackResponse(body).get('776094337676')
    if (!lookup?.found) throw new Error('expected a found lookup')
    expect(lookup.snapshot).toMatchObject({ rawStatusCode: 'FD', standardStatus: 'in_transit', carrierStatus: 'Running Late' })
    expect(lookup.snapshot.estimatedDeliveryAt?.toISOString()).toBe('2024-04-25T17:30:00.000Z')
    expect(lookup.snapshot.events.find((e) => e.eventCode === 'HP')!.exceptionDescription).toContain('available for pickup')
  })

  it('reads not-found as a per-number result inside HTTP 200', () => {
    const lookups = mapTrackResponse(fixture('response-not-found.json'))
    expect(lookups.get('39936862321')).toEqual({ found: false, reason: 'TRACKING.TRACKINGNUMBER.NOTFOUND' })
  })

  it("maps the developer portal's sample: full addresses, street lines, the estimated window", () => {
    const lookups = mapTrackResponse(fixture('response-docs-sample.json'))
    const found = lookups.get('123456789012')
    if (!found?.found) throw new Error('expected a found lookup')
    expect(found.snapshot.originAddress).toEqual({
      country: 'US',
      state: 'WA',
      city: 'SEATTLE',
      postalCode: '98101',
      address: '1043 North Easy Street, Suite 999',
    })
    expect(found.snapshot.estimatedDeliveryAt?.toISOString()).toBe('2021-10-15T06:00:00.000Z')
    expect(lookups.get('39936862321')).toEqual({ found: false, reason: 'TRACKING.TRACKINGNUMBER.NOTFOUND' })
  })

  it('reads alerts as a string or an array', () => {
    expect(alertsOf(fixture('response-not-found.json'))).toEqual(['TRACKING.DATA.NOTFOUND -  Tracking data unavailable'])
    expect(alertsOf({ output: { alerts: ['A', { code: 'B' }] } })).toEqual(['A', '{"code":"B"}'])
    expect(alertsOf({ output: {} })).toEqual([])
  })
})

describe('FedEx edge cases', () => {
  const result = (over: Record<string, unknown>) => ({
    output: {
      completeTrackResults: [
        {
          trackingNumber: 'N1',
          trackResults: [{ latestStatusDetail: { code: 'IT', derivedCode: 'IT', statusByLocale: 'In transit' }, scanEvents: [], ...over }],
        },
      ],
    },
  })
  const snapshot = (over: Record<string, unknown>) => {
    const lookup = mapTrackResponse(result(over)).get('N1')
    if (!lookup?.found) throw new Error('expected a found lookup')
    return lookup.snapshot
  }

  it('prefers ESTIMATED_DELIVERY, then the estimated window, then COMMITMENT, then the standard window', () => {
    const all = {
      dateAndTimes: [
        { type: 'COMMITMENT', dateTime: '2026-01-03T10:00:00Z' },
        { type: 'ESTIMATED_DELIVERY', dateTime: '2026-01-01T10:00:00Z' },
      ],
      estimatedDeliveryTimeWindow: { window: { ends: '2026-01-02T10:00:00Z' } },
      standardTransitTimeWindow: { window: { ends: '2026-01-04T10:00:00Z' } },
    }
    expect(snapshot(all).estimatedDeliveryAt?.toISOString()).toBe('2026-01-01T10:00:00.000Z')
    expect(snapshot({ ...all, dateAndTimes: [all.dateAndTimes[0]] }).estimatedDeliveryAt?.toISOString()).toBe('2026-01-02T10:00:00.000Z')
    expect(snapshot({ ...all, dateAndTimes: [all.dateAndTimes[0]], estimatedDeliveryTimeWindow: { window: {} } }).estimatedDeliveryAt?.toISOString()).toBe(
      '2026-01-03T10:00:00.000Z',
    )
    expect(snapshot({ standardTransitTimeWindow: all.standardTransitTimeWindow }).estimatedDeliveryAt?.toISOString()).toBe('2026-01-04T10:00:00.000Z')
    expect(snapshot({ dateAndTimes: [{ type: 'ESTIMATED_DELIVERY', dateTime: 'not a date' }] }).estimatedDeliveryAt).toBeNull()
  })

  it('falls back from shipper to origin facility, and from recipient to last updated destination to destination facility', () => {
    const facility = (city: string) => ({ locationContactAndAddress: { address: { city, countryCode: 'US', streetLines: [''] } } })
    const s1 = snapshot({
      shipperInformation: { address: { streetLines: [''], city: '' } },
      originLocation: facility('ORIGIN HUB'),
      destinationLocation: facility('DEST HUB'),
    })
    expect(s1.originAddress?.city).toBe('ORIGIN HUB')
    expect(s1.destinationAddress?.city).toBe('DEST HUB')
    const s2 = snapshot({ lastUpdatedDestinationAddress: { city: 'REDIRECTED' }, destinationLocation: facility('DEST HUB') })
    expect(s2.destinationAddress?.city).toBe('REDIRECTED')
    expect(snapshot({}).originAddress).toBeNull()
  })

  it('keeps the previous status for an unknown code (null), with the raw code and text', () => {
    const s = snapshot({ latestStatusDetail: { code: 'ZZ', derivedCode: '', statusByLocale: '', description: 'Something new' } })
    expect(s).toMatchObject({ standardStatus: null, rawStatusCode: 'ZZ', carrierStatus: 'Something new' })
  })

  it('falls back from derivedCode to code', () => {
    expect(fedexStandardStatus('', 'DL')).toBe('delivered')
    expect(fedexStandardStatus('RL', 'FD')).toBe('in_transit')
    expect(fedexStandardStatus('XX', 'YY')).toBeNull()
  })

  it('skips scans without a readable date and survives missing or odd fields', () => {
    const s = snapshot({
      scanEvents: [{ date: 'yesterday', eventType: 'AR' }, { date: '2026-01-01T00:00:00+0530', eventType: 'AR', scanLocation: 'nowhere' }, null, 5],
    })
    expect(s.events).toHaveLength(1)
    expect(s.events[0]!.eventTime.toISOString()).toBe('2025-12-31T18:30:00.000Z')
    expect(mapTrackResponse({ output: { completeTrackResults: 'x' } }).size).toBe(0)
    expect(mapTrackResponse(null).size).toBe(0)
  })
})
