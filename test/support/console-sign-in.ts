import type { Page } from 'playwright-core'
import { ADMIN_TOKEN } from './test-app'

/** Signs in to the console at `base` with the admin token (the form under "Sign in with the admin token"). */
export async function signInWithToken(page: Page, base: string, token = ADMIN_TOKEN): Promise<void> {
  await page.goto(`${base}/console`)
  await page.getByText('Sign in with the admin token').click()
  await page.getByLabel('Admin token').fill(token)
  await page.getByRole('button', { name: 'Sign in with the token' }).click()
  if (token === ADMIN_TOKEN) await page.getByRole('heading', { name: 'Overview' }).waitFor()
}

/** Signs in as an operator; waits for the overview unless `expectRefusal`. */
export async function signInAs(page: Page, base: string, email: string, password: string, expectRefusal = false): Promise<void> {
  await page.goto(`${base}/console/sign-in`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  if (!expectRefusal) await page.getByRole('heading', { name: 'Overview' }).waitFor()
}
