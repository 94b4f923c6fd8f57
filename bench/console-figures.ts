import type { ServiceProcess } from '../test/support/service-process'
import type { Row } from './report'

/**
 * The operator console over the seeded account (its target: fast at 1,000,000 tasks): each page
 * timed as an operator loads it, the overview both uncached (its one pass over the tasks) and
 * cached. Server time only: the HTML over loopback, no browser.
 */

export async function consoleFigures(kind: string, service: ServiceProcess, adminToken: string, tasks: number, row: Row): Promise<void> {
  const signIn = await fetch(`${service.baseUrl}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: adminToken }).toString(),
  })
  const cookie = /console_session=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')?.[0]
  if (!cookie) throw new Error(`console sign-in failed: HTTP ${signIn.status}`)
  const time = async (path: string) => {
    const started = performance.now()
    const res = await fetch(`${service.baseUrl}${path}`, { headers: { cookie } })
    await res.text()
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`)
    return performance.now() - started
  }
  const best = async (path: string) => Math.min(await time(path), await time(path), await time(path))
  const overview = await time('/console')
  const cached = await best('/console')
  const search = await best('/console/tasks?q=Q0-order-1234')
  const page = await best('/console/tasks?status=exception')
  const task = await best('/console/tasks/1')
  const failing = await best('/console/deliveries')
  const label = `${tasks.toLocaleString('en-US')} tasks`
  row(kind, `console overview, ${label}: uncached / cached`, `${Math.round(overview)} / ${Math.round(cached)} ms`, '', '', 'uncached ≤ 2,000 ms')
  row(
    kind,
    `console pages, ${label}: search / filtered page / task / failing deliveries`,
    `${Math.round(search)} / ${Math.round(page)} / ${Math.round(task)} / ${Math.round(failing)} ms`,
    '',
    '',
    '≤ 200 ms each',
  )
}
