import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeFindings, launchBrowser, newPage, overflow, screenshotFolder } from '../../../test/support/browser'
import { createTestApp, type TestApp } from '../../../test/support/test-app'
import { PAGE_STATES, putInState, type PageState } from '../../../test/support/tracking-page-states'

// The public tracking page in a real browser (Debian's chromium driven by playwright-core), in each
// state a parcel shows, for a shop with a long name, a logo and its colour: readable at 390 and
// 1440 px (nothing wider than the screen), no serious or critical axe finding, its one inline style
// allowed by the CSP and nothing refused, readable without JavaScript. Photographed into
// docs/tracking-page/ with SCREENSHOTS=1 (when the page changed), else into a temporary folder.
const SHOTS = screenshotFolder('tracking-page')
// The shop's logo, answered by the browser's own route (tests reach nothing but loopback).
const LOGO_URL = 'https://cdn.nordlicht-kaffee.example/logo.svg'
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="48" viewBox="0 0 240 48"><rect width="48" height="48" rx="10" fill="#7a3e00"/><circle cx="24" cy="24" r="11" fill="#f3d9b1"/><text x="60" y="32" font-family="Georgia, serif" font-size="22" fill="#3b1f00">Nordlicht Kaffee</text></svg>`

let t: TestApp
let base: string
let browser: Browser
const paths = new Map<PageState, string>()

beforeAll(async () => {
  t = await createTestApp()
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
  const shop = await t.createUser('nordlicht')
  await t.services.pages.saveBrand(shop.userId, {
    displayName: 'Nordlicht Kaffeerösterei & Feinkost GmbH – Versand Hamburg-Altona',
    logoUrl: LOGO_URL,
    accentColor: '#7a3e00',
    supportUrl: 'https://nordlicht-kaffee.example/hilfe/bestellungen-und-versand',
    supportEmail: 'kundenservice.versand@nordlicht-kaffee.example',
    showReference: true,
    defaultLanguage: 'en',
  })
  let n = 0
  for (const state of PAGE_STATES) {
    const { taskId } = await t.services.subscriptions.subscribe(shop.userId, {
      carrierCode: 'FEDEX',
      trackingNumber: `79461234${String(++n).padStart(4, '0')}`,
      callbackUrl: 'https://hooks.nordlicht-kaffee.example/tracking',
      externalReferenceNo: `NK-2026-11-${String(4000 + n)}`,
    })
    await putInState(t.db, taskId, state)
    const task = JSON.parse(await t.services.tasks.get(shop.userId, taskId)) as { trackingPageUrl: string }
    paths.set(state, new URL(task.trackingPageUrl).pathname)
  }
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await t?.close()
})

async function open(
  width: number,
  options: { bypassCSP?: boolean; javaScriptEnabled?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const opened = await newPage(browser, width, options)
  await opened.context.route(LOGO_URL, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO }))
  return opened
}

describe('the tracking page in Chromium', () => {
  it('runs under its CSP: the shop’s colour applied, the logo shown, nothing refused', async () => {
    const { context, page, errors } = await open(1440)
    await page.goto(`${base}${paths.get('in_transit')}`)
    const border = await page.evaluate(`getComputedStyle(document.querySelector('header.shop')).borderBottomColor`)
    expect(border).toBe('rgb(122, 62, 0)')
    expect(await page.evaluate(`document.querySelector('header.shop img').naturalWidth`)).toBeGreaterThan(0)
    expect(errors).toEqual([])
    await context.close()
  })

  it('reads without JavaScript', async () => {
    const { context, page } = await open(390, { javaScriptEnabled: false })
    await page.goto(`${base}${paths.get('delivered')}`)
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Delivered')
    await expect(page.getByText('J. TAN').isVisible()).resolves.toBe(true)
    await context.close()
  })

  it.each([390, 1440])(
    'shows every state readably and accessibly at %i px (axe: no serious or critical finding; screenshots in docs/tracking-page/)',
    async (width) => {
      // The CSP is bypassed here only so that axe can be injected; the test above runs under it.
      const { context, page } = await open(width, { bypassCSP: true })
      const shots: [string, string][] = [
        ...PAGE_STATES.map((state): [string, string] => [state, paths.get(state)!]),
        ['in_transit-de', `${paths.get('in_transit')}?lang=de`],
        ['delivered-fr', `${paths.get('delivered')}?lang=fr`],
        ['not-found-es', '/t/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA?lang=es'],
      ]
      for (const [name, path] of shots) {
        const response = await page.goto(`${base}${path}`)
        expect(response?.status(), path).toBe(name.startsWith('not-found') ? 404 : 200)
        expect(await overflow(page), `${name} at ${width}px`).toBeLessThanOrEqual(0)
        const findings = await axeFindings(page, { allRules: true })
        expect(
          findings.filter((f) => f.impact === 'serious' || f.impact === 'critical'),
          `${name} at ${width}px`,
        ).toEqual([])
        await page.screenshot({ path: `${SHOTS}${name}-${width}.png`, fullPage: true })
      }
      await context.close()
    },
  )
})
