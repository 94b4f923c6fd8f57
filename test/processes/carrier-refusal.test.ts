import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCarrierSimulator } from '../../src/carriers/registry'
import { USPS_NO_TRACKING_SCOPE } from '../../src/carriers/usps/usps.client'
import { DHL } from '../../src/carriers/dhl/dhl.plugin'
import { USPS } from '../../src/carriers/usps/usps.plugin'
import { escapeHtml } from '../../src/domain/html'
import { createRunDatabase, type RunDatabase } from '../support/run-database'
import { startService, type ServiceProcess } from '../support/service-process'
import { simulatorEnv } from '../support/simulator-env'
import { waitFor } from '../support/wait-for'

// A USPS app that was never granted the Tracking API (its token lacks the `tracking` scope) and a
// DHL key the carrier refuses. The operator reads why in /readyz and on the console, and the
// service does not keep asking: the circuit holds a refused credential for minutes (USPS counts
// token calls against 60 requests an hour), while the other carriers go on.

const ADMIN_TOKEN = 'carrier-refusal-admin-token'
// How long the test watches the refused carriers after their circuits open: a circuit that let a
// probe through after 2, 4 and 8 s (as for an outage) would have asked three more times in it.
const WATCH_MS = 15_000
const sim = createCarrierSimulator({ stepMs: 0, credentials: { [DHL.simulator.path]: { apiKey: 'the-right-key' } } })
let run: RunDatabase
let service: ServiceProcess

interface Circuit {
  state: string
  lastError: string | null
  retryAt: string | null
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
    [DHL.env.credentials.apiKey!]: 'a-refused-key',
    // A budget that would let DHL be asked every second: only the circuit holds it back.
    [DHL.env.requestBudget.variable]: '5/second',
    ADMIN_TOKEN,
    POLL_INTERVAL_SECONDS: '1',
  })
})
afterAll(async () => {
  await service?.stop()
  await run?.close()
  await sim.stop()
})

describe('refused credentials: a USPS app without the tracking scope, a refused DHL key', () => {
  it('says so in /readyz and on the console, holds the circuits for minutes, and leaves the other carriers alone', async () => {
    const { token } = (await call('POST', '/admin/api-users', ADMIN_TOKEN, { name: 'scopeless' })).data as { token: string }
    const subscribe = (carrierCode: string, trackingNumber: string) =>
      call('POST', '/openapi/tracking-subscriptions', token, { carrierCode, trackingNumber, callbackUrl: 'https://shop.example/hook' })
    for (let i = 0; i < 6; i++) await subscribe('USPS', `9400109104250532908${500 + i}`)
    for (let i = 0; i < 6; i++) await subscribe('DHL', DHL.simulator.storyNumber('DL', 900 + i))
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
    expect(tokensWhenOpen).toBeLessThanOrEqual(3)

    // DHL's key is refused: its circuit opens too, with DHL's words.
    const dhlOpen = await waitFor(
      async () => {
        const dhl = (await circuits()).DHL!
        return dhl.state === 'open' ? dhl : undefined
      },
      { timeoutMs: 20_000, what: "DHL's circuit open" },
    )
    expect(dhlOpen.lastError).toMatch(/^DHL refused the API key \(HTTP 401\)/)
    const dhlStats = () => sim.stats().carriers[DHL.simulator.path]!
    const dhlWhenOpen = dhlStats().trackRequests
    expect(dhlWhenOpen).toBeLessThanOrEqual(4)

    // Held for minutes, not seconds: nothing more is asked of either while the test watches, and
    // /readyz keeps saying why.
    for (const [code, circuit] of [
      ['USPS', open],
      ['DHL', dhlOpen],
    ] as const) {
      expect(Date.parse(circuit.retryAt!) - Date.now(), code).toBeGreaterThan(60_000)
    }
    const watchUntil = Date.now() + WATCH_MS
    await waitFor(() => Date.now() > watchUntil || stats().tokenRequests > tokensWhenOpen || dhlStats().trackRequests > dhlWhenOpen, {
      timeoutMs: WATCH_MS + 5_000,
      what: 'the watch to end',
    })
    expect([stats().tokenRequests - tokensWhenOpen, dhlStats().trackRequests - dhlWhenOpen, stats().trackRequests]).toEqual([0, 0, 0])
    expect((await circuits()).USPS).toMatchObject({ state: 'open', lastError: USPS_NO_TRACKING_SCOPE })
    expect((await circuits()).DHL).toMatchObject({ state: 'open', lastError: dhlOpen.lastError })

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
