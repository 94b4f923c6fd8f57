import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeFindings, launchBrowser, newPage, overflow, screenshotFolder } from '../../test/support/browser'
import { label, TRIGGER_HEADLINES } from '../domain/customer-labels'
import { TRIGGERS, type Trigger } from '../domain/notifications'
import { LANGUAGES, trackingPageOf, type Language } from '../domain/tracking-page'
import { renderEmail } from './email-message'
import { sampleParcel } from './sample-parcel'

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

const message = (trigger: Trigger, language: Language) =>
  renderEmail({
    page: trackingPageOf(sampleParcel(trigger, NOW), brand, { name: 'FedEx', trackingUrl: 'https://www.fedex.com/fedextrack/?trknbr=794612340001' }, language),
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
