import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GLS } from '../../src/carriers/gls/gls.plugin'
import { createCarrierSimulator } from '../../src/carriers/registry'
import { createRunDatabase, type RunDatabase } from '../support/run-database'
import { startService, type ServiceProcess } from '../support/service-process'
import { simulatorEnv } from '../support/simulator-env'
import { waitFor } from '../support/wait-for'
import { WebhookReceiver } from '../support/webhook-receiver'

// The service as `npm start` runs it (ROLE=all): a number subscribed with the wrong carrier stays
// pending, unknown to it; after the user's hours the worker tries the other candidates, moves the
// task to the one that knows it, tells the account endpoint, and the new carrier's fetch fills it in.

const ADMIN_TOKEN = 'carrier-correction-admin-token'
const sim = createCarrierSimulator({ stepMs: 0 })
const receiver = new WebhookReceiver()
let run: RunDatabase
let service: ServiceProcess

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } }
}

beforeAll(async () => {
  await sim.start()
  await receiver.start()
  run = await createRunDatabase()
  service = await startService({
    ...run.env,
    ...simulatorEnv(sim),
    ADMIN_TOKEN,
    POLL_INTERVAL_SECONDS: '1',
    CARRIER_CORRECTION_POLL_MS: '200',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // GLS's default, its daily quota (500 a day), lets one request through every three minutes:
    // auto-correct's request and the moved task's first fetch share it.
    [GLS.env.requestBudget.variable]: '10/second',
  })
})
afterAll(async () => {
  await service?.stop()
  await run?.close()
  await receiver.stop()
  await sim.stop()
})

describe('auto-correct in the running service', () => {
  it('moves a stuck task to the carrier that knows its number, tells the endpoint, and the new carrier fills it in', async () => {
    const { token } = (await call('POST', '/admin/api-users', ADMIN_TOKEN, { name: 'wrong-carrier shop' })).body.data as { token: string }
    expect((await call('PUT', '/openapi/settings', token, { carrierAutoCorrect: true, carrierAutoCorrectHours: 0.001 })).status).toBe(200)
    const url = receiver.on('/events', () => ({ status: 204 }))
    expect((await call('POST', '/openapi/webhook-endpoints', token, { url, eventTypes: ['tracking.carrier_changed'] })).status).toBe(200)
    const subscribed = await call('POST', '/openapi/tracking-subscriptions', token, {
      carrierCode: 'FEDEX',
      trackingNumber: 'ONLYGLS2468024',
      callbackUrl: receiver.on('/callback', () => ({ status: 200 })),
    })
    const taskId = subscribed.body.data.taskId as number

    let last: unknown
    const task = await waitFor(
      async () => {
        const { data } = (last = (await call('GET', `/openapi/tracking-subscriptions/${taskId}`, token)).body)
        return data.carrierCode === 'GLS' && data.standardStatus === 'delivered' ? data : undefined
      },
      { timeoutMs: 20_000, what: () => `the task moved to GLS and delivered: ${JSON.stringify(last)}\n${service.output().slice(-3000)}` },
    )
    expect(task).toMatchObject({
      carrierChanges: [{ previousCarrierCode: 'FEDEX', carrierCode: 'GLS', reason: 'auto_correct' }],
      carrierCorrection: {
        outcome: 'moved',
        tried: [
          { carrierCode: 'LAPOSTE', outcome: 'not_found' },
          { carrierCode: 'GLS', outcome: 'found' },
        ],
      },
    })
    const told = await waitFor(() => receiver.requests('/events')[0], { timeoutMs: 10_000, what: 'tracking.carrier_changed at the endpoint' })
    expect(JSON.parse(told.body)).toMatchObject({
      type: 'tracking.carrier_changed',
      data: { taskId, carrierCode: 'GLS', previousCarrierCode: 'FEDEX', reason: 'auto_correct', standardStatus: 'pending' },
    })
    // The callback hears the interface's status change from pending, as for any task.
    const callback = await waitFor(() => receiver.requests('/callback').at(-1), { timeoutMs: 10_000, what: 'the callback' })
    expect(JSON.parse(callback.body)).toMatchObject({ data: { carrierCode: 'GLS', standardStatus: 'delivered' } })
  })
})
