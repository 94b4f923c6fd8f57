import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeFindings, launchBrowser, newPage, overflow, screenshotFolder } from '../../test/support/browser'
import { label, TRIGGER_HEADLINES } from '../domain/customer-labels'
import { TRIGGERS, type Trigger } from '../domain/notifications'
import { LANGUAGES, trackingPageOf, type Language, type TrackingPageSource } from '../domain/tracking-page'
import { renderEmail } from './email-message'

// Every message (each trigger, each language) rendered in a real browser (Debian's chromium driven
// by playwright-core) as a mail client shows HTML: readable at 390 and 1440 px (nothing wider than
// the screen), no serious or critical axe finding, readable with images off (the logo's text).
// Photographed into docs/notifications/ with SCREENSHOTS=1 (when the messages changed).
const SHOTS = screenshotFolder('notifications')
const LOGO_URL = 'https://cdn.nordlicht-kaffee.example/logo.svg'
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="48" viewBox="0 0 240 48"><rect width="48" height="48" rx="10" fill="#7a3e00"/><circle cx="24" cy="24" r="11" fill="#f3d9b1"/><text x="60" y="32" font-family="Georgia, serif" font-size="22" fill="#3b1f00">Nordlicht Kaffee</text></svg>`
const NOW = new Date('2026-11-26T09:00:00Z')

const brand = {
  displayName: 'Nordlicht Kaffeerösterei & Feinkost GmbH – Versand Hamburg-Altona',
  logoUrl: LOGO_URL,
  accentColor: '#7a3e00',
  supportUrl: 'https://nordlicht-kaffee.example/hilfe/bestellungen-und-versand',
  supportEmail: 'kundenservice.versand@nordlicht-kaffee.example',
  showReference: true,
  defaultLanguage: 'en' as const,
}

/** The parcel as the tracking page reads it when the trigger's message is sent. */
function sourceAt(trigger: Trigger): TrackingPageSource {
  const at = (hours: number) => new Date(NOW.getTime() + hours * 3_600_000)
  const events: TrackingPageSource['events'] = [
    {
      eventTime: at(-30),
      utcOffset: '-06:00',
      description: 'Shipment information sent to FedEx',
      city: 'MEMPHIS',
      state: 'TN',
      country: 'US',
      milestone: 'info_received',
    },
    { eventTime: at(-20), utcOffset: '-06:00', description: 'Picked up', city: 'MEMPHIS', state: 'TN', country: 'US', milestone: 'in_transit' },
  ]
  const last = {
    in_transit: undefined,
    out_for_delivery: { description: 'On FedEx vehicle for delivery', milestone: 'out_for_delivery' as const },
    available_for_pickup: { description: 'Ready for pickup at FedEx OnSite location', milestone: 'available_for_pickup' as const },
    failed_attempt: { description: 'Delivery exception: customer not available or business closed', milestone: 'failed_attempt' as const },
    delivered: { description: 'Delivered', milestone: 'delivered' as const },
    exception: { description: 'Shipment exception: incorrect address', milestone: 'exception' as const },
  }[trigger]
  if (last) events.push({ eventTime: at(-1), utcOffset: '+01:00', city: 'HAMBURG', state: '', country: 'DE', ...last })
  return {
    carrierCode: 'FEDEX',
    trackingNumber: '794612340001',
    externalReferenceNo: 'NK-2026-11-4001',
    milestone: trigger,
    estimatedDeliveryAt: trigger === 'delivered' ? null : at(30),
    prediction: null,
    originAddress: { city: 'MEMPHIS', state: 'TN', country: 'US' },
    destinationAddress: { city: 'HAMBURG', country: 'DE' },
    proofOfDelivery: null,
    updatedAt: NOW,
    events,
  }
}

const message = (trigger: Trigger, language: Language) =>
  renderEmail({
    page: trackingPageOf(sourceAt(trigger), brand, { name: 'FedEx', trackingUrl: 'https://www.fedex.com/fedextrack/?trknbr=794612340001' }, language),
    trigger,
    name: 'Anna-Lena Müller-Lüdenscheidt',
    pageUrl: 'https://track.example/t/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    unsubscribeUrl: 'https://track.example/u/BBBBBBBBBBBBBBBBBBBBBB',
  })

let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
})

describe('the notification emails in a browser', () => {
  it.each([390, 1440])('are readable at %i px in every language, with no serious axe finding', async (width) => {
    const { context, page } = await newPage(browser, width, { bypassCSP: true })
    await context.route(LOGO_URL, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO }))
    for (const language of LANGUAGES) {
      for (const trigger of TRIGGERS) {
        const { html, subject, text } = message(trigger, language)
        await page.setContent(html)
        expect(await overflow(page), `${language} ${trigger}`).toBeLessThanOrEqual(0)
        expect(await page.locator('h1').textContent()).toBe(TRIGGER_HEADLINES[language][trigger])
        expect(await page.getByRole('link', { name: label(language, 'trackButton') }).getAttribute('href')).toBe(
          'https://track.example/t/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        )
        expect(subject).toContain(TRIGGER_HEADLINES[language][trigger])
        expect(text).toContain('https://track.example/u/BBBBBBBBBBBBBBBBBBBBBB')
        const serious = (await axeFindings(page)).filter((f) => f.impact === 'serious' || f.impact === 'critical')
        expect(serious, `${language} ${trigger}`).toEqual([])
        if (language === 'en' || (language === 'de' && (trigger === 'delivered' || trigger === 'failed_attempt'))) {
          await page.screenshot({ path: `${SHOTS}email-${trigger}-${language}-${width}.png`, fullPage: true })
        }
      }
    }
    await context.close()
  })

  it('reads with images off: the shop is named where its logo was', async () => {
    const { context, page } = await newPage(browser, 390, { bypassCSP: true })
    await context.route(LOGO_URL, (route) => route.abort())
    await page.setContent(message('delivered', 'fr').html)
    expect(await page.getByRole('img', { name: brand.displayName }).count()).toBe(1)
    expect(await page.locator('html').getAttribute('lang')).toBe('fr')
    await context.close()
  })
})
