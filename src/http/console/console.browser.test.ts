import { Registry } from 'prom-client'
import { simulatorAdapter } from '../../../test/support/simulator-adapter'
import { createRefreshService, createWebhookDelivery } from '../../../test/support/worker-services'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeFindings, launchBrowser, newPage as openPage, overflow, screenshotFolder } from '../../../test/support/browser'
import { signInWithToken } from '../../../test/support/console-sign-in'
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../test/support/test-app'
import { waitFor } from '../../../test/support/wait-for'
import { WebhookReceiver } from '../../../test/support/webhook-receiver'
import { CARRIERS, createCarrierSimulator } from '../../carriers/registry'
import { OutboxRepository } from '../../db/outbox.repository'
import { recordDeliveries } from '../../db/transit-writes'
import type { Delivery } from '../../domain/transit-times'
import { ServiceMetrics } from '../../observability/metrics'
import { CarrierBudget } from '../../services/carrier-budget'
import { WebhookHttp } from '../../webhooks/webhook-http'

// The operator console in a real browser (Debian's chromium driven by playwright-core): an operator
// signs in, creates an API user, finds a parcel, reads its timeline, redelivers a webhook that
// failed; and the security cases. Every page is photographed at 390 and 1440 px: into docs/console/
// with SCREENSHOTS=1 (when the pages changed), else into a temporary folder, so that a test run
// leaves the tree as it found it.
const SHOTS = screenshotFolder('console')

let t: TestApp
let base: string
let browser: Browser
const sim = createCarrierSimulator({ stepMs: 0 })
const receiver = new WebhookReceiver()
let http: WebhookHttp

beforeAll(async () => {
  t = await createTestApp()
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
  await sim.start()
  await receiver.start()
  http = new WebhookHttp({ timeoutMs: 2000, allowPrivateTargets: true })
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await http?.close()
  await receiver.stop()
  await sim.stop()
  await t?.close()
})

function newPage(width = 1440, options: { bypassCSP?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  return openPage(browser, width, options)
}

const signIn = (page: Page, token = ADMIN_TOKEN) => signInWithToken(page, base, token)

/** The parcel's carrier fetch and its webhook attempt, as the workers would make them. */
async function refreshAndDeliver(): Promise<void> {
  const channels = new Map(
    CARRIERS.map((c) => [
      c.code,
      {
        adapter: simulatorAdapter(c, sim, 2000),
        budget: new CarrierBudget(1000),
      },
    ]),
  )
  const refresh = createRefreshService(
    t.db,
    channels,
    { pollIntervalMs: 3_600_000, expireAfterMs: 30 * 86_400_000, leaseMs: 30_000, claimLimit: 100, retryBaseMs: 100, retryMaxMs: 200 },
    new ServiceMetrics(new Registry()),
  )
  await refresh.runRound()
  for (const channel of channels.values()) await channel.adapter.close()
  const delivery = createWebhookDelivery(
    t.db,
    new OutboxRepository(t.db),
    http,
    { scheduleMs: [3_600_000], leaseMs: 10_000, concurrency: 4, hostConcurrency: 4 },
    new ServiceMetrics(new Registry()),
    {
      warn: () => {},
    },
  )
  await delivery.runRound()
  await delivery.drain()
}

/** Twelve weeks of deliveries on 24 lanes of three carriers, as the refresh records them, for the transit-times page. */
let learned = false
async function learnedDeliveries(): Promise<void> {
  if (learned) return
  learned = true
  const deliveries: Delivery[] = []
  const states = ['TN', 'CA', 'NY', 'TX', 'WA', 'IL', 'FL', 'Nordrhein-Westfalen']
  for (const [c, carrierCode] of ['FEDEX', 'UPS', 'DHL'].entries()) {
    for (const [s, state] of states.entries()) {
      const abroad = carrierCode === 'DHL'
      const lane = {
        carrierCode,
        originCountry: abroad ? 'DE' : 'US',
        originState: state,
        destinationCountry: s % 3 === 0 ? 'SG' : 'US',
        destinationState: s % 3 === 0 ? '' : states[(s + 3) % 8]!,
      }
      for (let i = 0; i < 20 + ((c * 7 + s * 5) % 40); i++) {
        const deliveredAt = new Date(Date.now() - ((i * 2 + s) % 84) * 86_400_000)
        deliveries.push({
          userId: 1,
          lane,
          deliveredAt,
          transitHours: 20 + s * 9 + c * 15 + ((i * 37) % 30),
          withEta: i % 4 !== 0,
          onTime: i % 4 !== 0 && (i + s) % 7 > 0,
          passedException: i % 11 === 0,
        })
      }
    }
  }
  await t.db.transaction((tx) => recordDeliveries(tx, deliveries))
}

describe('the console in a browser', () => {
  let userToken = ''
  let taskId = 0

  it('signs in, creates an API user with its secrets shown once, finds a task, reads its timeline and redelivers its webhook', async () => {
    const { context, page, errors } = await newPage()
    await signIn(page)
    await expect.poll(() => page.getByRole('heading', { name: 'Overview' }).isVisible()).toBe(true)
    expect(await page.title()).toBe('Overview · Tracking console')
    const cookies = await context.cookies()
    expect(cookies.find((c) => c.name === 'console_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' })

    await page.getByRole('link', { name: 'API users' }).click()
    await page.getByLabel('New API user').fill('Shop 1001')
    await page.getByRole('button', { name: 'Create user' }).click()
    await page.getByText('API user "Shop 1001" created').waitFor()
    userToken = (await page.locator('#secret-token').textContent())!
    expect(userToken).toMatch(/^trk_/)
    expect(await page.locator('#secret-webhook').textContent()).toMatch(/^whsec_/)
    // Shown once, by the page the form redirected to: reloading it shows them no more and
    // creates nothing again.
    expect(new URL(page.url()).pathname).toBe('/console/users')
    await page.reload()
    await page.getByRole('heading', { name: 'API users' }).waitFor()
    expect(await page.locator('#secret-token').count()).toBe(0)
    expect(await page.getByText('API user "Shop 1001" created').count()).toBe(0)
    expect((await t.services.users.list()).filter((u) => u.name === 'Shop 1001')).toHaveLength(1)

    // The shop subscribes order 1001's parcel; its receiver is down, so the webhook fails.
    const callbackUrl = receiver.on('/shop-1001', () => ({ status: 503, body: 'maintenance' }))
    const res = await fetch(`${base}/openapi/tracking-subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ carrierCode: 'FEDEX', trackingNumber: 'FA1001', callbackUrl, externalReferenceNo: 'order-1001' }),
    })
    taskId = ((await res.json()) as { data: { taskId: number } }).data.taskId
    // Other parcels of the shop, for the overview: every carrier, several stories, a broken receiver.
    const broken = receiver.on('/broken', () => ({ status: 500, body: 'upstream error' }))
    const items = [
      { carrierCode: 'FEDEX', trackingNumber: 'HP2002', callbackUrl },
      { carrierCode: 'UPS', trackingNumber: '1ZEX0000000003', callbackUrl: broken },
      { carrierCode: 'UPARCEL', trackingNumber: 'UP2411220001', callbackUrl },
      { carrierCode: 'FEDEX', trackingNumber: 'NF4004', callbackUrl },
      { carrierCode: 'UPS', trackingNumber: '1ZHP0000000005', callbackUrl },
    ]
    await fetch(`${base}/openapi/tracking-subscriptions/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    })
    await refreshAndDeliver()

    // "Where is order 1001's parcel, and did the shop get told?"
    await page.getByRole('link', { name: 'Tasks' }).click()
    await page.getByLabel('Tracking number or external reference').fill('order-1001')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByRole('link', { name: 'FA1001', exact: true }).click()
    await page.getByRole('heading', { name: `Task ${taskId}: FA1001` }).waitFor()
    // Whose parcel it is, by name: the link leads to the shop's page.
    expect(await page.locator('dl.facts a[href^="/console/users/"]').textContent()).toBe('Shop 1001')
    const timeline = page.locator('ol.timeline li')
    expect(await timeline.count()).toBe(7)
    expect(await timeline.first().textContent()).toContain('Delivered')
    await page.getByText('failed_attempt'.replaceAll('_', ' ')).first().waitFor()
    const summary = page.locator('details summary').first()
    expect(await summary.textContent()).toContain('retry wait')
    await summary.click()
    expect(await page.locator('details table').first().textContent()).toContain('503')

    // The shop is back: redeliver.
    receiver.on('/shop-1001', () => ({ status: 200 }))
    await page.getByRole('button', { name: 'Redeliver' }).first().click()
    await page.getByText('The webhook is queued again').waitFor()
    await refreshAndDeliver()
    await waitFor(() => receiver.requests('/shop-1001').some((r) => r.headers['webhook-id']) && receiver.requests('/shop-1001').length >= 2, {
      what: 'the redelivery',
    })
    expect(errors).toEqual([])
    await context.close()
  })

  it("manages a user's tokens and secret, stops a task after a confirmation, filters and pages the tasks, and changes the settings", async () => {
    const { context, page, errors } = await newPage()
    await signIn(page)
    await page.goto(`${base}/console/users/1`)
    await page.getByRole('button', { name: 'Issue a new token' }).click()
    await page.getByText(/Token \d+ issued/).waitFor()
    const issued = (await page.locator('#secret-token').textContent())!
    const tokensIssued = (await t.services.users.listTokens(1)).length
    await page.reload()
    await page.getByRole('button', { name: 'Issue a new token' }).waitFor()
    expect(await page.locator('#secret-token').count()).toBe(0)
    expect((await t.services.users.listTokens(1)).length).toBe(tokensIssued)
    const asUser = () => fetch(`${base}/openapi/carriers`, { headers: { authorization: `Bearer ${issued}` } })
    expect((await asUser()).status).toBe(200)
    // Revoking asks first; dismissed, nothing happens; accepted, the token stops working.
    const revoke = page.getByRole('row').filter({ hasText: 'active' }).last().getByRole('button', { name: 'Revoke' })
    const before = page.url()
    page.once('dialog', (dialog) => void dialog.dismiss())
    await revoke.click()
    expect(page.url()).toBe(before)
    expect((await asUser()).status).toBe(200)
    page.once('dialog', (dialog) => void dialog.accept())
    await revoke.click()
    await page.getByText('The token is revoked').waitFor()
    await waitFor(async () => (await asUser()).status === 401 || undefined, { what: 'the revoked token to be refused' })
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Rotate the webhook secret' }).click()
    const rotated = (await page.locator('#secret-webhook').textContent())!
    expect(rotated).toMatch(/^whsec_/)
    await page.reload()
    await page.getByRole('button', { name: 'Rotate the webhook secret' }).waitFor()
    expect(await page.locator('#secret-webhook').count()).toBe(0)
    const [secret] = await t.db.query<{ webhook_secret: string }>('SELECT webhook_secret FROM api_users WHERE id = 1')
    expect(secret!.webhook_secret).toBe(rotated)

    // Stop an active task (NF4004 is never found, so it stays active).
    await page.goto(`${base}/console/tasks?q=NF4004`)
    await page.getByRole('link', { name: 'NF4004', exact: true }).click()
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Stop tracking' }).click()
    await page.getByText('Tracking stopped').waitFor()
    expect(await page.getByRole('button', { name: 'Stop tracking' }).count()).toBe(0)

    // Filters, and pages of 50 (a page's last task id is the next one's start).
    await page.goto(`${base}/console/tasks`)
    await page.getByLabel('Carrier').selectOption('UPS')
    await page.getByRole('button', { name: 'Search' }).click()
    expect(await page.locator('tbody tr').count()).toBe(2)
    await page.getByLabel('Status').selectOption('exception')
    await page.getByRole('button', { name: 'Search' }).click()
    expect(await page.locator('tbody tr').count()).toBe(1)
    const many = Array.from({ length: 60 }, (_, i) => ({ carrierCode: 'FEDEX', trackingNumber: `PAGE${i}`, callbackUrl: 'https://shop.example/hook' }))
    const token = (await t.services.users.issueToken(1)).token
    await fetch(`${base}/openapi/tracking-subscriptions/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items: many }),
    })
    await page.goto(`${base}/console/tasks`)
    expect(await page.locator('tbody tr').count()).toBe(50)
    await page.getByRole('link', { name: 'Next page' }).click()
    expect(await page.locator('tbody tr').count()).toBe(66 - 50)
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0)

    // Settings: saved through the settings service, a bad value explained.
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByLabel('retentionDays', { exact: true }).fill('90')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Settings saved.').waitFor()
    expect((await t.services.settings.get()).retentionDays).toBe(90)
    expect(errors).toEqual([])
    // A bad value (past the field's own max, which a browser would stop) is answered 400 with the reason.
    await page.getByLabel('batchMaxItems', { exact: true }).fill('5000')
    await page.getByLabel('batchMaxItems', { exact: true }).evaluate((input) => input.removeAttribute('max'))
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText(/Not saved: batchMaxItems/).waitFor()
    expect((await t.services.settings.get()).batchMaxItems).toBe(100)
    await context.close()
  })

  it('refuses what it must: no cookie, an ended session, a forged form, a wrong token', async () => {
    // No cookie: every page sends to the sign-in; a POST does nothing.
    const anonymous = await fetch(`${base}/console/users`, { redirect: 'manual' })
    expect(anonymous.status).toBe(303)
    expect(anonymous.headers.get('location')).toBe('/console/sign-in')
    const before = (await t.services.users.list()).length
    const forgedAnonymous = await fetch(`${base}/console/users`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Evil',
    })
    expect(forgedAnonymous.status).toBe(303)

    // A wrong token: the page says so, 401, no cookie.
    const { context, page } = await newPage()
    await signIn(page, 'not-the-admin-token')
    await page.getByText('That is not the admin token').waitFor()
    expect((await context.cookies()).length).toBe(0)

    // A forged form: a session cookie but no CSRF token (another site cannot read it).
    await signIn(page)
    const cookie = (await context.cookies()).find((c) => c.name === 'console_session')!.value
    const forged = await fetch(`${base}/console/users`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `console_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Evil',
    })
    expect(forged.status).toBe(403)
    expect(await forged.text()).toContain('did not come from this console session')
    const wrongToken = await fetch(`${base}/console/users`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `console_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Evil&_csrf=guess',
    })
    expect(wrongToken.status).toBe(403)
    expect((await t.services.users.list()).length).toBe(before)

    // An ended session (expired, or signed out): back to the sign-in, saying so.
    await t.db.query("UPDATE console_sessions SET expires_at = now() - interval '1 second'")
    await page.goto(`${base}/console/settings`)
    await page.getByText('Your session has ended').waitFor()
    await signIn(page)
    await page.getByRole('button', { name: 'Sign out' }).click()
    const afterSignOut = await fetch(`${base}/console`, { redirect: 'manual', headers: { cookie: `console_session=${cookie}` } })
    expect(afterSignOut.headers.get('location')).toBe('/console/sign-in?ended=1')
    await context.close()
  })

  it.each([1440, 390])('shows every page readably and accessibly at %i px (axe: no WCAG 2 A/AA violation; screenshots in docs/console/)', async (width) => {
    // The CSP is bypassed here only so that axe can be injected; the flows above run under it.
    const { context, page } = await newPage(width, { bypassCSP: true })
    await signIn(page)
    await learnedDeliveries()
    for (const [name, path] of [
      ['overview', '/console'],
      ['users', '/console/users'],
      ['user', '/console/users/1'],
      ['tasks', '/console/tasks'],
      ['task', `/console/tasks/${taskId}`],
      ['deliveries', '/console/deliveries'],
      ['carriers', '/console/carriers'],
      ['transit', '/console/transit'],
      ['settings', '/console/settings'],
      ['notification-preview', '/console/users/1/notifications/preview?trigger=out_for_delivery&language=de'],
    ]) {
      const response = await page.goto(`${base}${path}`)
      expect(response?.status(), path).toBe(200)
      // Nothing wider than the screen (wide tables scroll inside their frame; on a phone they are cards).
      expect(await overflow(page), `${path} at ${width}px`).toBeLessThanOrEqual(0)
      expect(await axeFindings(page), `${path} at ${width}px`).toEqual([])
      // The email is framed: drawn once it is scrolled to (Chromium leaves a frame of another origin off screen undrawn).
      if (name === 'notification-preview') {
        await page.locator('iframe.email-preview').scrollIntoViewIfNeeded()
        await page.frameLocator('iframe.email-preview').getByRole('heading', { name: 'Ihr Paket wird heute zugestellt' }).waitFor()
      }
      // The pages with many rows are photographed with realistic data by console-team.browser.test.ts.
      if (!['users', 'user', 'tasks', 'task', 'deliveries'].includes(name!)) await page.screenshot({ path: `${SHOTS}${name}-${width}.png`, fullPage: true })
    }
    await page.goto(`${base}/console/sign-in`)
    await page.screenshot({ path: `${SHOTS}sign-in-${width}.png` })
    await context.close()
  })

  // Last: it locks this address out of signing in for a quarter of an hour.
  it('limits sign-in attempts per address', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 7; i++) {
      const r = await fetch(`${base}/console/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'token=wrong',
      })
      statuses.push(r.status)
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429])
    const locked = await fetch(`${base}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${ADMIN_TOKEN}`,
    })
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800)
    expect(await locked.text()).toContain('too many failed sign-ins')
  })
})
