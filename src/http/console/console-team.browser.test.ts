import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeFindings, launchBrowser, newPage, overflow, screenshotFolder } from '../../../test/support/browser'
import { signInAs, signInWithToken } from '../../../test/support/console-sign-in'
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../test/support/test-app'
import { waitFor } from '../../../test/support/wait-for'
import { seedTeamData } from '../../../test/support/console-team-data'

// The console for a team in a real browser, with realistic data (long names and URLs, many users,
// tasks and attempts): operators and their roles, enforced on the server; sessions ended by an
// admin; the audit trail; phone layouts; the overview's charts; the bulk replay; token prefixes and
// last use; users searched and paged. The team's pages are photographed at 390 and 1440 px.
const SHOTS = screenshotFolder('console')
const LONG_NAME = 'Großhandel für Outdoor- und Campingausrüstung Müller-Lüdenscheidt GmbH & Co. KG, Niederlassung Süd'
const LONG_URL = 'https://hooks.grosshandel-mueller-luedenscheidt.example/webhooks/tracking/v2/status-changed?tenant=niederlassung-sued-west&format=standard'
const PASSWORD = 'correct horse battery staple'
const OPERATORS = {
  admin: 'ada.admin@example.com',
  support: 'sam.support-desk.second-line.with-a-long-address@support.example.com',
  viewer: 'vic.viewer@example.com',
} as const

let t: TestApp
let base: string
let browser: Browser
let longUserId = 0
let longTaskId = 0
let longToken = ''
let unbrokenUserId = 0

beforeAll(async () => {
  t = await createTestApp()
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
  browser = await launchBrowser()
  ;({ longUserId, longTaskId, longToken, unbrokenUserId } = await seedTeamData(t, LONG_NAME, LONG_URL))
})
afterAll(async () => {
  await browser?.close()
  await t?.close()
})

async function signedInAdmin(width = 1440, bypassCSP = false): Promise<{ page: Page; close: () => Promise<void> }> {
  const { context, page } = await newPage(browser, width, { bypassCSP })
  await signInWithToken(page, base)
  return { page, close: () => context.close() }
}

/** The session cookie and CSRF token of a signed-in page, for requests the page would not send. */
async function formCredentials(page: Page): Promise<{ cookie: string; csrf: string }> {
  const cookie = (await page.context().cookies()).find((c) => c.name === 'console_session')!.value
  await page.goto(`${base}/console/account`)
  const csrf = (await page.locator('input[name="_csrf"]').first().getAttribute('value'))!
  return { cookie, csrf }
}

const post = (path: string, credentials: { cookie: string; csrf: string }, fields: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `console_session=${credentials.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: credentials.csrf, ...fields }).toString(),
  })

const auditRows = () =>
  t.db.query<{ id: number; actor: string; action: string; outcome: string; target_id: string | null; detail: unknown }>('SELECT * FROM audit_log ORDER BY id')

describe('the console for a team', () => {
  it('lets the admin token create operators with roles; each signs in with their own password, refused when wrong', async () => {
    const admin = await signedInAdmin()
    const { page } = admin
    await page.getByRole('link', { name: 'Operators' }).click()
    await page.getByText('No operators yet').waitFor()
    // A password under 12 characters is refused, the form kept as typed.
    await page.getByLabel('Email').fill(OPERATORS.admin)
    await page.getByLabel('Role').selectOption('admin')
    await page.getByLabel('First password').fill('too short')
    // The browser's own minlength check stands in the way of a person; the server's is the rule.
    await page.locator('#op-password').evaluate((input) => input.removeAttribute('minlength'))
    await page.getByRole('button', { name: 'Create operator' }).click()
    await page.getByText('Not created: password must be at least 12 characters').waitFor()
    expect(await page.getByLabel('Email').inputValue()).toBe(OPERATORS.admin)
    for (const [role, email] of Object.entries(OPERATORS)) {
      await page.goto(`${base}/console/operators`)
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Role').selectOption(role)
      await page.getByLabel('First password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Create operator' }).click()
      await page.getByRole('heading', { name: `Operator: ${email}` }).waitFor()
    }
    // The password is kept only as its scrypt hash.
    const [stored] = await t.db.query<{ password_hash: string }>('SELECT password_hash FROM operators WHERE email = $1', [OPERATORS.viewer])
    expect(stored!.password_hash).toMatch(/^scrypt\$15\$8\$1\$/)
    expect(stored!.password_hash).not.toContain(PASSWORD)
    await admin.close()

    const { context, page: viewer } = await newPage(browser, 1440)
    await signInAs(viewer, base, OPERATORS.viewer, 'not the password at all', true)
    await viewer.getByText('that email and password do not match an operator').waitFor()
    await signInAs(viewer, base, 'nobody@example.com', PASSWORD, true)
    await viewer.getByText('that email and password do not match an operator').waitFor()
    await signInAs(viewer, base, OPERATORS.viewer.toUpperCase(), PASSWORD)
    await viewer.getByRole('link', { name: OPERATORS.viewer }).waitFor()
    expect(await viewer.locator('header .badge.role').textContent()).toBe('viewer')
    await context.close()
    const signIns = (await auditRows()).filter((r) => r.action === 'console.sign_in')
    expect(signIns.map((r) => [r.actor, r.outcome])).toEqual([
      ['admin token', 'ok'],
      ['vic.viewer@example.com', 'refused'],
      ['vic.viewer@example.com', 'ok'],
    ])
  })

  it('enforces roles on the server: a viewer changes nothing, support refreshes but creates no user; each refusal is in the audit log', async () => {
    const { context, page } = await newPage(browser, 1440)
    await signInAs(page, base, OPERATORS.viewer, PASSWORD)
    await page.goto(`${base}/console/tasks/${longTaskId}`)
    await page.getByRole('heading', { name: new RegExp(`^Task ${longTaskId}`) }).waitFor()
    // Not offered …
    expect(await page.getByRole('button', { name: 'Refresh now' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Redeliver' }).count()).toBe(0)
    await page.goto(`${base}/console/users`)
    expect(await page.getByLabel('New API user').count()).toBe(0)
    // … and refused when sent anyway, with a valid session and CSRF token.
    const viewer = await formCredentials(page)
    const refused = await post(`/console/tasks/${longTaskId}/refresh`, viewer)
    expect(refused.status).toBe(403)
    expect(await refused.text()).toContain('Your role (viewer) may not do this')
    expect((await post('/console/users', viewer, { name: 'Sneaky' })).status).toBe(403)
    expect((await post('/console/settings', viewer, { batchMaxItems: '1' })).status).toBe(403)
    expect((await t.services.settings.get()).batchMaxItems).toBe(100)
    expect((await t.services.users.search({ search: 'Sneaky' }, 10)).length).toBe(0)
    await context.close()

    const support = await newPage(browser, 1440)
    await signInAs(support.page, base, OPERATORS.support, PASSWORD)
    await support.page.goto(`${base}/console/tasks/${longTaskId}`)
    await support.page.getByRole('button', { name: 'Refresh now' }).click()
    await support.page.getByText('The carrier will be asked within seconds.').waitFor()
    const supportForm = await formCredentials(support.page)
    expect((await post('/console/users', supportForm, { name: 'Sneaky' })).status).toBe(403)
    expect((await post(`/console/users/${longUserId}/tokens`, supportForm)).status).toBe(403)
    await support.context.close()

    const rows = await auditRows()
    expect(rows.filter((r) => r.outcome === 'denied').map((r) => [r.actor, r.action])).toEqual([
      [OPERATORS.viewer, 'task.refresh'],
      [OPERATORS.viewer, 'api_user.create'],
      [OPERATORS.viewer, 'settings.update'],
      [OPERATORS.support, 'api_user.create'],
      [OPERATORS.support, 'api_token.issue'],
    ])
    expect(rows.find((r) => r.action === 'task.refresh' && r.outcome === 'ok')).toMatchObject({ actor: OPERATORS.support, target_id: String(longTaskId) })
  })

  it("ends an operator's sessions from the admin's page, disables them, and takes the session's lifetime from the setting", async () => {
    const support = await newPage(browser, 1440)
    await signInAs(support.page, base, OPERATORS.support, PASSWORD)
    const admin = await signedInAdmin()
    await admin.page.goto(`${base}/console/operators`)
    await admin.page.getByRole('link', { name: OPERATORS.support }).click()
    await admin.page.getByText('127.0.0.1').first().waitFor()
    admin.page.once('dialog', (dialog) => void dialog.accept())
    await admin.page.getByRole('button', { name: 'End every session' }).click()
    await admin.page.getByText("The operator's sessions have ended").waitFor()
    await support.page.goto(`${base}/console/tasks`)
    await support.page.getByText('Your session has ended').waitFor()

    // Disabled: their sign-in is refused even with the right password.
    admin.page.once('dialog', (dialog) => void dialog.accept())
    await admin.page.getByRole('button', { name: 'Disable' }).click()
    await admin.page.getByText('Operator saved').waitFor()
    await signInAs(support.page, base, OPERATORS.support, PASSWORD, true)
    await support.page.getByText('this operator is disabled').waitFor()
    admin.page.once('dialog', (dialog) => void dialog.accept())
    await admin.page.getByRole('button', { name: 'Enable' }).click()
    await admin.page.getByText('Operator saved').waitFor()

    // A session lasts consoleSessionHours.
    await admin.page.goto(`${base}/console/settings`)
    await admin.page.getByLabel('consoleSessionHours', { exact: true }).fill('2')
    await admin.page.getByRole('button', { name: 'Save settings' }).click()
    await admin.page.getByText('Settings saved.').waitFor()
    const answer = await fetch(`${base}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: OPERATORS.support, password: PASSWORD }).toString(),
    })
    expect(answer.status).toBe(303)
    expect(answer.headers.get('set-cookie')).toContain('Max-Age=7200')
    await admin.close()
    await support.context.close()
  })

  it('lets an operator change their own password (the current one required; their other sessions end)', async () => {
    const first = await newPage(browser, 1440)
    await signInAs(first.page, base, OPERATORS.viewer, PASSWORD)
    const second = await newPage(browser, 1440)
    await signInAs(second.page, base, OPERATORS.viewer, PASSWORD)
    await second.page.getByRole('link', { name: OPERATORS.viewer }).click()
    await second.page.getByLabel('Current password').fill('wrong wrong wrong')
    await second.page.getByLabel('New password').fill('a new password, long enough')
    await second.page.getByRole('button', { name: 'Change the password' }).click()
    await second.page.getByText('Not changed: currentPassword is not your current password').waitFor()
    await second.page.getByLabel('Current password').fill(PASSWORD)
    await second.page.getByLabel('New password').fill('a new password, long enough')
    await second.page.getByRole('button', { name: 'Change the password' }).click()
    await second.page.getByText('Password changed.').waitFor()
    await first.page.goto(`${base}/console/tasks`)
    await first.page.getByText('Your session has ended').waitFor()
    await second.page.goto(`${base}/console/tasks`)
    await second.page.getByRole('heading', { name: 'Tasks' }).waitFor()
    await signInAs(first.page, base, OPERATORS.viewer, 'a new password, long enough')
    await first.context.close()
    await second.context.close()
    // Never a password in the audit log.
    expect(JSON.stringify(await auditRows())).not.toContain('long enough')
  })

  it('shows token prefixes and last use, finds users by name and pages them', async () => {
    expect((await t.as(longToken, { method: 'GET', url: `/openapi/tracking-subscriptions/${longTaskId}` })).statusCode).toBe(200)
    await waitFor(async () => (await t.services.users.listTokens(longUserId))[0]!.last_used_at ?? undefined, { what: "the token's last use" })
    const { page, close } = await signedInAdmin()
    await page.goto(`${base}/console/users/${longUserId}`)
    const row = page.getByRole('region', { name: 'API tokens' }).getByRole('row').nth(1)
    expect(await row.textContent()).toContain(`${longToken.slice(0, 12)}…`)
    expect(await row.textContent()).not.toContain(longToken)
    expect(await row.locator('td[data-label="Last used"]').textContent()).toMatch(/UTC \((now|\d+ s ago)\)/)

    await page.goto(`${base}/console/users`)
    expect(await page.getByRole('region', { name: 'API users' }).getByRole('row').count()).toBe(51)
    await page.getByRole('link', { name: 'Next page' }).click()
    expect(await page.getByRole('region', { name: 'API users' }).getByRole('row').count()).toBe(1 + 10)
    await page.getByLabel('Name or id').fill('versandhaus')
    await page.getByRole('button', { name: 'Search' }).click()
    expect(await page.getByRole('region', { name: 'API users' }).getByRole('row').count()).toBe(1 + 9)
    await page.getByLabel('Name or id').fill('100%_')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByText('No API user has that name or id.').waitFor()
    await close()
  })

  it('replays the failed deliveries of a user from the console, and records it', async () => {
    const { page, close } = await signedInAdmin()
    await page.goto(`${base}/console/deliveries`)
    // Each failing delivery says where it goes.
    expect(await page.getByRole('region', { name: 'Failing deliveries' }).textContent()).toContain(LONG_URL)
    await page.getByText('Replay failed deliveries in bulk').click()
    // A malformed id is refused by the form; an endpoint that is not the user's, by the service (and recorded).
    await page.getByLabel('API user id').fill('abc')
    await page.locator('#replayUser').evaluate((input) => input.removeAttribute('pattern'))
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Replay failed deliveries' }).click()
    await page.getByText('Nothing replayed: userId must be a positive integer').waitFor()
    await page.getByLabel('API user id').fill(String(longUserId))
    await page.getByLabel('Endpoint id').fill('999')
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Replay failed deliveries' }).click()
    await page.getByText("Nothing replayed: endpointId is not this user's endpoint").waitFor()
    await page.getByLabel('Endpoint id').fill('')
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Replay failed deliveries' }).click()
    await page.getByText('3 failed deliveries queued again.').waitFor()
    const [left] = await t.db.query<{ failed: number }>("SELECT count(*)::int AS failed FROM deliveries WHERE status = 'failed'")
    expect(left!.failed).toBe(0)
    // The page shown once: a reload replays nothing and says nothing.
    await page.reload()
    expect(await page.getByText('3 failed deliveries queued again.').count()).toBe(0)
    const replay = (await auditRows()).filter((r) => r.action === 'webhook.replay')
    expect(replay.map((r) => r.outcome)).toEqual(['refused', 'ok'])
    expect(replay[1]!.detail).toMatchObject({ userId: longUserId, queued: 3 })
    await close()
  })

  it("keeps the overview's colours by meaning, links its bars to the list they count, and scales the 24 hours", async () => {
    const { page, close } = await signedInAdmin()
    const fill = (list: string, label: string) =>
      page
        .getByRole('list', { name: list })
        .getByRole('link', { name: new RegExp(`^${label} `) })
        .locator('rect')
        .getAttribute('fill')
    expect(await fill('Tasks by status', 'pending')).toBe(await fill('Tasks by milestone', 'pending'))
    const day = page.getByRole('img', { name: /^Status changes, webhook deliveries and failed deliveries/ })
    expect(await day.textContent()).toContain('failed deliveries (retrying or failed for good)')
    expect(await day.locator('.scale-y span').allTextContents()).toEqual(['5', '2.5', '0'])
    await page.getByRole('list', { name: 'Tasks by carrier' }).getByRole('link', { name: /^UPS / }).click()
    await page.getByRole('heading', { name: 'Tasks' }).waitFor()
    expect(new URL(page.url()).search).toBe('?carrier=UPS')
    expect(await page.getByLabel('Carrier').inputValue()).toBe('UPS')
    expect(await page.getByRole('region', { name: 'Tasks' }).getByRole('row').count()).toBe(1 + 10)
    await close()
  })

  it('reads the audit trail in the console by operator, action and target, and through GET /admin/audit-log with a cursor, never with a secret', async () => {
    const { page, close } = await signedInAdmin()
    await page.goto(`${base}/console/users/${longUserId}`)
    await page.getByRole('button', { name: 'Issue a new token' }).click()
    const newToken = (await page.locator('#secret-token').textContent())!
    await page.goto(`${base}/console/audit`)
    await page.getByLabel('Who').selectOption({ label: OPERATORS.viewer })
    await page.getByRole('button', { name: 'Filter' }).click()
    const rows = page.getByRole('region', { name: 'Audit log' }).getByRole('row')
    await rows.nth(1).waitFor()
    for (const text of await rows.allTextContents()) if (!text.startsWith('When')) expect(text).toContain(OPERATORS.viewer)
    await page.getByLabel('Who').selectOption({ label: 'the admin token' })
    await page.getByLabel('Action').selectOption('api_token.issue')
    await page.getByRole('button', { name: 'Filter' }).click()
    expect(await rows.count()).toBe(2)
    expect(await rows.nth(1).textContent()).toContain(`api user ${longUserId}`)
    expect(await rows.nth(1).textContent()).toContain(`tokenPrefix: ${newToken.slice(0, 12)}`)
    // By target, and by a time window that holds nothing (an hour in the past).
    await page.goto(`${base}/console/audit?targetKind=task&targetId=${longTaskId}`)
    expect((await rows.allTextContents()).slice(1).map((text) => /task\.refresh/.test(text) && text.includes(`task ${longTaskId}`))).toEqual([true])
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16)
    await page.getByLabel('Before (UTC)').fill(hourAgo)
    await page.getByRole('button', { name: 'Filter' }).click()
    await page.getByText('Nothing recorded matches these filters.').waitFor()
    await close()

    const all = await auditRows()
    const text = JSON.stringify(all)
    expect(text).not.toContain(newToken)
    expect(text).not.toContain(PASSWORD)
    const read = (query: string) => t.app.inject({ method: 'GET', url: `/admin/audit-log?${query}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    const seen: number[] = []
    let cursor = ''
    for (;;) {
      const body = (await read(`limit=4${cursor ? `&cursor=${cursor}` : ''}`)).json() as { data: { entries: { id: number }[]; nextCursor: string | null } }
      seen.push(...body.data.entries.map((e) => e.id))
      if (!body.data.nextCursor) break
      cursor = body.data.nextCursor
    }
    expect(seen).toEqual(all.map((r) => r.id).reverse())
    const denied = (await read('actorKind=operator&action=api_user.create')).json() as { data: { entries: { outcome: string; address: string }[] } }
    expect(denied.data.entries.map((e) => e.outcome)).toEqual(['denied', 'denied'])
    expect(denied.data.entries[0]!.address).toBe('127.0.0.1')
    expect((await read('action=drop_tables')).statusCode).toBe(400)
  })

  it.each([1440, 390])(
    'shows every page with realistic data at %i px: nothing wider than the screen, no axe finding, key columns on a phone',
    async (width) => {
      const { page, close } = await signedInAdmin(width, true)
      const [operator] = await t.db.query<{ id: number }>('SELECT id FROM operators WHERE email = $1', [OPERATORS.support])
      for (const [name, path] of [
        ['overview', '/console'],
        ['users', '/console/users'],
        ['user', `/console/users/${longUserId}`],
        ['unbroken user', `/console/users/${unbrokenUserId}`],
        ['tasks', '/console/tasks'],
        ['task', `/console/tasks/${longTaskId}`],
        ['deliveries', '/console/deliveries'],
        ['carriers', '/console/carriers'],
        ['transit', '/console/transit'],
        ['settings', '/console/settings'],
        ['operators', '/console/operators'],
        ['operator', `/console/operators/${operator!.id}`],
        ['account', '/console/account'],
        ['audit', '/console/audit'],
      ] as const) {
        const response = await page.goto(`${base}${path}`)
        expect(response?.status(), path).toBe(200)
        if (name === 'task') for (const summary of await page.locator('details summary').all()) await summary.click()
        expect(await overflow(page), `${path} at ${width}px`).toBeLessThanOrEqual(0)
        expect(await axeFindings(page), `${path} at ${width}px`).toEqual([])
        if (name === 'tasks') {
          // On a phone each task is a card: its number, status and user are on the screen, labelled.
          const first = page.getByRole('region', { name: 'Tasks' }).getByRole('row').nth(1)
          for (const label of ['Tracking number', 'Status', 'API user', 'Reference']) {
            const box = await first.locator(`td[data-label="${label}"]`).boundingBox()
            expect(box, `${label} at ${width}px`).not.toBeNull()
            expect(box!.x + box!.width, `${label} at ${width}px`).toBeLessThanOrEqual(width)
          }
        }
        // The long screenshots are of the pages with realistic data; the sign-in and the rest are the other browser test's.
        if (['operators', 'operator', 'account', 'audit', 'deliveries', 'users', 'user', 'tasks', 'task'].includes(name)) {
          await page.screenshot({ path: `${SHOTS}${name}-${width}.png`, fullPage: true })
        }
      }
      await close()
    },
  )
})
