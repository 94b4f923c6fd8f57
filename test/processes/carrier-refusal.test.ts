import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCarrierSimulator } from '../../src/carriers/registry'
import { USPS_NO_TRACKING_SCOPE } from '../../src/carriers/usps/usps.client'
import { USPS } from '../../src/carriers/usps/usps.plugin'
import { escapeHtml } from '../../src/http/html'
import { createRunDatabase, type RunDatabase } from '../support/run-database'
import { startService, type ServiceProcess } from '../support/service-process'
import { simulatorEnv } from '../support/simulator-env'
import { waitFor } from '../support/wait-for'

// A USPS app that was never granted the Tracking API: its token lacks the `tracking` scope. The
// operator reads why in /readyz and on the console, and the service does not keep asking: the
// circuit opens and the requests thin out, while the other carriers go on.

const ADMIN_TOKEN = 'carrier-refusal-admin-token'
const sim = createCarrierSimulator({ stepMs: 0 })
let run: RunDatabase
let service: ServiceProcess

interface Circuit {
  state: string
  lastError: string | null
}

const circuits = async () => ((await (await fetch(`${service.baseUrl}/readyz`)).json()) as { data: { carriers: Record<string, Circuit> } }).data.carriers

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  return (await res.json()) as { data: Record<string, unknown> }
}

beforeAll(async () => {
  await sim.start()
  run = await createRunDatabase()
  service = await startService({
    ...run.env,
    ...simulatorEnv(sim),
    [USPS.env.credentials.clientId!]: 'notrack-app',
    ADMIN_TOKEN,
    POLL_INTERVAL_SECONDS: '1',
  })
})
afterAll(async () => {
  await service?.stop()
  await run?.close()
  await sim.stop()
})

describe('a USPS app without the tracking scope', () => {
  it('says so in /readyz and on the console, opens the circuit, and leaves the other carriers alone', async () => {
    const { token } = (await call('POST', '/admin/api-users', ADMIN_TOKEN, { name: 'scopeless' })).data as { token: string }
    const subscribe = (carrierCode: string, trackingNumber: string) =>
      call('POST', '/openapi/tracking-subscriptions', token, { carrierCode, trackingNumber, callbackUrl: 'https://shop.example/hook' })
    for (let i = 0; i < 6; i++) await subscribe('USPS', `9400109104250532908${500 + i}`)
    const fedex = (await subscribe('FEDEX', `DLSCOPE${Date.now()}`)).data.taskId as number

    const open = await waitFor(
      async () => {
        const usps = (await circuits()).USPS!
        return usps.state === 'open' ? usps : undefined
      },
      { timeoutMs: 20_000, what: "USPS's circuit open" },
    )
    expect(open.lastError).toBe(USPS_NO_TRACKING_SCOPE)
    expect((await circuits()).FEDEX!.state).toBe('closed')
    await waitFor(async () => (await call('GET', `/openapi/tracking-subscriptions/${fedex}`, token)).data.lastCheckedAt, {
      timeoutMs: 10_000,
      what: "the FedEx task's fetch",
    })

    // The token endpoint said no scope: the tracking endpoint is never asked, and the token calls
    // stop with the circuit (USPS counts them against the hourly quota).
    const stats = () => sim.stats().carriers[USPS.simulator.path]!
    expect(stats().trackRequests).toBe(0)
    const tokensWhenOpen = stats().tokenRequests
    // For as long as the circuit stays open, USPS is asked for nothing; once it lets a probe
    // through, for one token at most.
    await waitFor(async () => (await circuits()).USPS!.state !== 'open', { timeoutMs: 40_000, what: "USPS's circuit to let a probe through" })
    expect(stats().tokenRequests - tokensWhenOpen).toBeLessThanOrEqual(1)

    const signIn = await fetch(`${service.baseUrl}/console/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${ADMIN_TOKEN}`,
      redirect: 'manual',
    })
    const cookie = /console_session=[^;]+/.exec(String(signIn.headers.get('set-cookie')))![0]
    for (const page of ['/console', '/console/carriers']) {
      const body = await (await fetch(`${service.baseUrl}${page}`, { headers: { cookie } })).text()
      expect(body, page).toContain(escapeHtml(USPS_NO_TRACKING_SCOPE))
    }
  })
})
