import { existsSync, mkdtempSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'

/** Debian's chromium, driven by playwright-core: what the pages' tests run in (.ci/run installs it). */
export const CHROMIUM = '/usr/bin/chromium'
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`)
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/**
 * Where a test's screenshots go: `docs/<folder>/` with SCREENSHOTS=1 (when the pages changed), else
 * a temporary folder, so that a test run leaves the tree as it found it.
 */
export function screenshotFolder(folder: string): string {
  return process.env.SCREENSHOTS === '1' ? new URL(`../../docs/${folder}/`, import.meta.url).pathname : `${mkdtempSync(join(tmpdir(), `${folder}-`))}/`
}

/** A page at `width` px whose console errors (a script or stylesheet the CSP refused, a failed load) are collected. */
export async function newPage(
  browser: Browser,
  width: number,
  options: { bypassCSP?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, ...options })
  // A missing element fails the test in seconds, naming the element.
  context.setDefaultTimeout(5000)
  const page = await context.newPage()
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return { context, page, errors }
}

export interface AxeFinding {
  id: string
  impact: string
  help: string
  nodes: string[]
}

/**
 * axe-core's findings on the page (its context must bypass the CSP to inject axe): the WCAG 2 A and
 * AA rules, or with `allRules` every rule axe has (best practices too).
 */
export async function axeFindings(page: Page, { allRules = false } = {}): Promise<AxeFinding[]> {
  await page.addScriptTag({ path: AXE })
  const options = allRules ? '' : `, { runOnly: ['wcag2a', 'wcag2aa'] }`
  return page.evaluate(
    `axe.run(document${options}).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) })))`,
  ) as Promise<AxeFinding[]>
}

/** How far the page is wider than the screen (0 or less: not at all). */
export async function overflow(page: Page): Promise<number> {
  return Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'))
}
