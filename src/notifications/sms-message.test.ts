import { describe, expect, it } from 'vitest'
import { label, TRIGGER_HEADLINES } from '../domain/customer-labels'
import { TRIGGERS } from '../domain/notifications'
import { LANGUAGES, trackingPageOf, type TrackingPageSource } from '../domain/tracking-page'
import { renderSms } from './sms-message'
import { twilioSignature, twilioSignatureValid } from './twilio-signature'

const NOW = new Date('2026-11-26T09:00:00Z')
const URL_ = 'https://track.example/t/AAAAAAAAAAAAAAAAAAAAAA'
const brand = {
  displayName: 'Nordlicht Kaffee',
  logoUrl: null,
  accentColor: '#7a3e00',
  supportUrl: null,
  supportEmail: null,
  showReference: false,
  defaultLanguage: 'en' as const,
}
const source = (estimated: Date | null): TrackingPageSource => ({
  carrierCode: 'FEDEX',
  trackingNumber: '794612340001',
  externalReferenceNo: '',
  milestone: 'in_transit',
  estimatedDeliveryAt: estimated,
  prediction: null,
  originAddress: {},
  destinationAddress: {},
  proofOfDelivery: null,
  updatedAt: NOW,
  events: [],
})
const page = (language: (typeof LANGUAGES)[number], estimated: Date | null = new Date('2026-11-28T12:00:00Z')) =>
  trackingPageOf(source(estimated), brand, { name: 'FedEx', trackingUrl: '' }, language)

// GSM 03.38's basic characters: a text of only these is 153 a segment when split, any other 67 (UCS-2).
const GSM = new Set([...'@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà'])
const segments = (text: string) => {
  const length = [...text].length
  const [single, split] = [...text].every((c) => GSM.has(c)) ? [160, 153] : [70, 67]
  return length <= single ? 1 : Math.ceil(length / split)
}

describe('a notification text', () => {
  it("says each trigger in each language: the shop, the milestone, the expected day, the page's link and how to stop", () => {
    for (const language of LANGUAGES)
      for (const trigger of TRIGGERS) {
        const text = renderSms(page(language), trigger, null, URL_)
        expect(text.startsWith(`Nordlicht Kaffee: ${TRIGGER_HEADLINES[language][trigger].replaceAll('’', "'")}.`), text).toBe(true)
        expect(text).toContain(label(language, 'smsTrack', { url: URL_ }))
        expect(text.endsWith(label(language, 'smsStop'))).toBe(true)
        expect(segments(text), `${language} ${trigger}: ${text}`).toBeLessThanOrEqual(language === 'es' ? 4 : 2)
        expect(text).not.toMatch(/[\r\n]/)
      }
    expect(renderSms(page('en'), 'out_for_delivery', null, URL_)).toBe(
      `Nordlicht Kaffee: Your parcel is out for delivery. Expected delivery: Saturday, November 28, 2026. Track: ${URL_} Reply STOP to opt out.`,
    )
    // The typographic apostrophe is GSM's plain one: French stays in GSM's alphabet.
    expect(renderSms(page('fr'), 'failed_attempt', null, URL_)).toContain("n'a pas pu")
    expect(segments(renderSms(page('fr'), 'failed_attempt', null, URL_))).toBe(2)
    // Delivered: no expected day any more.
    expect(renderSms(page('en'), 'delivered', null, URL_)).toBe(`Nordlicht Kaffee: Your parcel has been delivered. Track: ${URL_} Reply STOP to opt out.`)
  })

  it("uses the shop's sender name on one line", () => {
    expect(renderSms(page('en', null), 'in_transit', 'Nordlicht\r\nBcc: x', URL_)).toBe(
      `Nordlicht Bcc: x: Your parcel is on its way. Track: ${URL_} Reply STOP to opt out.`,
    )
  })
})

describe("Twilio's request signature", () => {
  it("is Twilio's documented example, and fails for another URL, parameter or token", () => {
    // https://www.twilio.com/docs/usage/security#validating-requests
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2'
    const params: [string, string][] = [
      ['Digits', '1234'],
      ['To', '+18005551212'],
      ['From', '+14158675310'],
      ['Caller', '+14158675310'],
      ['CallSid', 'CA1234567890ABCDE'],
    ]
    expect(twilioSignature('12345', url, params)).toBe('GvWf1cFY/Q7PnoempGyD5oXAezc=')
    expect(twilioSignatureValid('12345', url, params, 'GvWf1cFY/Q7PnoempGyD5oXAezc=')).toBe(true)
    expect(twilioSignatureValid('12345', url.replace('foo=1', 'foo=2'), params, 'GvWf1cFY/Q7PnoempGyD5oXAezc=')).toBe(false)
    expect(twilioSignatureValid('12345', url, [...params.slice(1), ['Digits', '1235']], 'GvWf1cFY/Q7PnoempGyD5oXAezc=')).toBe(false)
    expect(twilioSignatureValid('54321', url, params, 'GvWf1cFY/Q7PnoempGyD5oXAezc=')).toBe(false)
    expect(twilioSignatureValid('12345', url, params, undefined)).toBe(false)
    expect(twilioSignatureValid('12345', url, params, 'short')).toBe(false)
  })
})
