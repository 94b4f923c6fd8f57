import { readFileSync } from 'node:fs'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeFindings, launchBrowser, newPage, overflow, screenshotFolder } from '../../../test/support/browser'
import { signInWithToken } from '../../../test/support/console-sign-in'
import { createTestApp, type TestApp } from '../../../test/support/test-app'

// A user's parcels in and out as CSV from the console, in Chromium: the import's progress and its
// failed rows, a file refused as a whole, the export's download.
const SHOTS = screenshotFolder('console')

let t: TestApp
let base: string
let browser: Browser
beforeAll(async () => {
  t = await createTestApp()
  base = await t.app.listen({ port: 0, host: '127.0.0.1' })
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await t?.close()
})

const HEADER = 'carrierCode,trackingNumber,callbackUrl,externalReferenceNo'
/** 250 rows: three chunks of the batch (100 a chunk), two of them refused. */
function file(): string {
  const rows = Array.from({ length: 250 }, (_, i) => `UPARCEL,UPCSV${String(i).padStart(7, '0')},https://shop.example/hook,order-${i}`)
  rows[10] = 'UPARCEL,UPCSVBAD,ftp://shop.example/hook,order-bad'
  rows[200] = 'NOPE,X1234567,https://shop.example/hook,'
  return [HEADER, ...rows].join('\r\n')
}

describe('CSV in the console', () => {
  it("imports a user's parcels with its progress, lists the rows that failed, and exports the tasks", async () => {
    const { userId } = await t.createUser('csv shop')
    for (const width of [1440, 390]) {
      const { context, page, errors } = await newPage(browser, width)
      await signInWithToken(page, base)
      await page.goto(`${base}/console/users/${userId}`)
      await page.getByLabel(/Subscribe parcels from a CSV file/).setInputFiles({ name: 'parcels.csv', mimeType: 'text/csv', buffer: Buffer.from(file()) })
      await page.getByRole('button', { name: 'Import' }).click()
      const status = page.getByRole('status')
      await status.filter({ hasText: 'Done:' }).waitFor()
      // The first run creates 248; the second finds them tracked already.
      const created = width === 1440 ? 248 : 0
      expect(await status.textContent()).toBe(`Done: 250 rows, ${created} created, ${248 - created} already tracked, 2 failed.`)
      const failed = page.getByRole('table', { name: 'The rows that failed' })
      expect(await failed.locator('tbody tr').allTextContents()).toEqual([
        expect.stringMatching(/^12validation errorUPCSVBADcallbackUrl/),
        expect.stringMatching(/^202unsupported carrierX1234567/),
      ])
      expect(await page.locator('progress').getAttribute('value')).toBe('100')
      expect(errors).toEqual([])
      expect(await overflow(page)).toBeLessThanOrEqual(0)
      if (width === 1440) {
        // axe needs its script in the page: a second look with the CSP bypassed.
        const { context: axeContext, page: axePage } = await newPage(browser, width, { bypassCSP: true })
        await signInWithToken(axePage, base)
        await axePage.goto(`${base}/console/users/${userId}`)
        expect(await axeFindings(axePage)).toEqual([])
        await axeContext.close()
      }
      await page.locator('h2', { hasText: 'CSV' }).scrollIntoViewIfNeeded()
      await page.screenshot({ path: `${SHOTS}csv-import-${width}.png` })
      await context.close()
    }
    const [row] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tracking_tasks WHERE user_id = $1', [userId])
    expect(row!.n).toBe(248)

    const { context, page } = await newPage(browser, 1440)
    await signInWithToken(page, base)
    await page.goto(`${base}/console/users/${userId}`)
    await page.getByLabel('Carrier', { exact: true }).selectOption('UPARCEL')
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export the tasks (CSV)' }).click()])
    expect(download.suggestedFilename()).toBe(`user-${userId}-tasks.csv`)
    const lines = readFileSync((await download.path())!, 'utf8')
      .trimEnd()
      .split('\r\n')
    expect(lines[0]).toMatch(/^taskId,carrierCode,trackingNumber,externalReferenceNo,/)
    expect(lines).toHaveLength(1 + 248)
    expect(lines.slice(1).every((line) => line.includes(',UPARCEL,UPCSV'))).toBe(true)
    await context.close()
  })

  it('says why a file is refused as a whole, and writes nothing', async () => {
    const { userId } = await t.createUser('csv refused')
    const { context, page, errors } = await newPage(browser, 1440)
    await signInWithToken(page, base)
    await page.goto(`${base}/console/users/${userId}`)
    await page.getByLabel(/Subscribe parcels from a CSV file/).setInputFiles({
      name: 'wrong.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('carrier,number\r\nUPS,1Z5R89390357567127'),
    })
    await page.getByRole('button', { name: 'Import' }).click()
    await page.getByRole('status').filter({ hasText: 'Not imported' }).waitFor()
    expect(await page.getByRole('status').textContent()).toMatch(/^Not imported: header column 1 of the header, "carrier", is not one of carrierCode/)
    expect(errors.filter((e) => !e.includes('400'))).toEqual([])
    const [row] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tracking_tasks WHERE user_id = $1', [userId])
    expect(row!.n).toBe(0)
    const audit = await t.db.query<{ action: string; outcome: string }>("SELECT action, outcome FROM audit_log WHERE action = 'task.import' ORDER BY id")
    expect(audit.map((a) => `${a.action} ${a.outcome}`)).toEqual(['task.import ok', 'task.import ok', 'task.import refused'])
    await context.close()
  })
})
