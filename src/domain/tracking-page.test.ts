import { describe, expect, it } from 'vitest'
import { brandProblems, chooseLanguage, DEFAULT_BRAND, readableAccent, trackingPageOf, type TrackingPageSource } from './tracking-page'

const SOURCE: TrackingPageSource = {
  carrierCode: 'UPS',
  trackingNumber: '1Z5R89390357567127',
  externalReferenceNo: 'ORDER-1',
  milestone: 'in_transit',
  estimatedDeliveryAt: null,
  prediction: { earliest: '2026-11-28T10:00:00.000Z', latest: '2026-11-30T10:00:00.000Z' },
  originAddress: { city: 'ATLANTA', state: 'GA', country: 'US' },
  destinationAddress: {},
  proofOfDelivery: { signedBy: 'A', location: 'Porch', signatureAvailable: false, documentUrl: null },
  updatedAt: new Date('2026-11-27T10:00:00Z'),
  events: [
    {
      eventTime: new Date('2026-11-26T10:00:00Z'),
      utcOffset: '-05:00',
      description: 'Picked up',
      city: 'ATLANTA',
      state: 'GA',
      country: 'US',
      milestone: 'in_transit',
    },
    { eventTime: new Date('2026-11-27T09:00:00Z'), utcOffset: null, description: 'Departed', city: '', state: '', country: '', milestone: 'in_transit' },
  ],
}
const carrier = { name: 'UPS', trackingUrl: 'https://www.ups.com/track?tracknum=1Z5R89390357567127' }

describe('chooseLanguage', () => {
  it('takes ?lang=, else the best Accept-Language by q and order, else the default', () => {
    expect(chooseLanguage('DE', 'fr', 'en')).toBe('de')
    expect(chooseLanguage('it', 'es-MX;q=0.4, fr-CA;q=0.7', 'en')).toBe('fr')
    expect(chooseLanguage(undefined, 'it, de;q=0', 'es')).toBe('es')
    expect(chooseLanguage(undefined, '*', 'fr')).toBe('fr')
    expect(chooseLanguage(undefined, undefined, 'de')).toBe('de')
  })
})

describe('trackingPageOf', () => {
  it('shows the progress, the prediction when the carrier gives no ETA, newest events first, no proof before delivery', () => {
    const page = trackingPageOf(SOURCE, DEFAULT_BRAND, carrier, 'en')
    expect(page.progress.map((p) => p.state)).toEqual(['done', 'current', 'todo', 'todo'])
    expect(page.expected).toEqual({ source: 'prediction', earliest: SOURCE.prediction!.earliest, latest: SOURCE.prediction!.latest })
    expect(page.events.map((e) => e.description)).toEqual(['Departed', 'Picked up'])
    expect(page.events[1]!.localTime).toBe('2026-11-26T05:00:00-05:00')
    expect(page.events[0]!.place).toBeNull()
    expect(page.destination).toBeNull()
    expect(page.proofOfDelivery).toBeNull()
    expect(page.reference).toBeNull()
  })

  it('prefers the carrier’s ETA, shows none once the journey ended, and the proof when delivered', () => {
    const eta = new Date('2026-11-29T00:00:00Z')
    expect(trackingPageOf({ ...SOURCE, estimatedDeliveryAt: eta }, DEFAULT_BRAND, carrier, 'en').expected).toEqual({ source: 'carrier', at: eta.toISOString() })
    const deliveredEvent = { ...SOURCE.events[1]!, eventTime: new Date('2026-11-28T08:00:00Z'), milestone: 'delivered' as const }
    const delivered = trackingPageOf(
      { ...SOURCE, milestone: 'delivered', estimatedDeliveryAt: eta, events: [...SOURCE.events, deliveredEvent] },
      DEFAULT_BRAND,
      carrier,
      'en',
    )
    expect(delivered.expected).toBeNull()
    expect(delivered).toMatchObject({ ended: true, deliveredAt: '2026-11-28T08:00:00.000Z' })
    expect(delivered.progress.every((p) => p.state === 'done')).toBe(true)
    expect(delivered.proofOfDelivery).toEqual(SOURCE.proofOfDelivery)
    const failed = trackingPageOf({ ...SOURCE, milestone: 'failed_attempt' }, DEFAULT_BRAND, carrier, 'en')
    expect(failed.trouble).toBe(true)
    expect(failed.progress.map((p) => p.state)).toEqual(['done', 'done', 'current', 'todo'])
  })

  it('shows the reference only with showReference, and a pale colour darkened until it reads on white', () => {
    const page = trackingPageOf(SOURCE, { ...DEFAULT_BRAND, showReference: true, accentColor: '#ffee00' }, carrier, 'en')
    expect(page.reference).toBe('ORDER-1')
    expect(page.shop.accentColor).not.toBe('#ffee00')
    expect(readableAccent('#0b5cad')).toBe('#0b5cad')
  })
})

describe('brandProblems', () => {
  it('accepts https URLs, #rrggbb and an email address', () => {
    expect(
      brandProblems({
        ...DEFAULT_BRAND,
        logoUrl: 'https://a.example/l.png',
        supportUrl: 'https://a.example/help',
        accentColor: '#A1b2C3',
        supportEmail: 'help@a.example',
      }),
    ).toEqual([])
  })
})
