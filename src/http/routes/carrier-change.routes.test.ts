import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../../test/support/test-app'
import { RefreshRepository } from '../../db/refresh.repository'
import type { CarrierSnapshot } from '../../domain/tracking-update'
import { RefreshApply } from '../../services/refresh-apply'

let t: TestApp
let owner: { userId: number; token: string }
let stranger: { userId: number; token: string }
const PATH = '/openapi/tracking-subscriptions'
/** A UPS number whose check digit holds, and no other carrier's format: AUTO picks UPS. */
const UPS_NUMBER = '1Z999AA10123456784'

beforeAll(async () => {
  t = await createTestApp()
  owner = await t.createUser('owner')
  stranger = await t.createUser('stranger')
})
afterAll(() => t.close())

let seq = 0
const number = () => `CC${Date.now()}${++seq}`
async function subscribe(carrierCode: string, trackingNumber = number(), user = owner): Promise<number> {
  return (await t.services.subscriptions.subscribe(user.userId, { carrierCode, trackingNumber, callbackUrl: 'https://shop.example/hook' })).taskId
}
const patch = (taskId: number, payload: unknown, token = owner.token) => t.as(token, { method: 'PATCH', url: `${PATH}/${taskId}`, payload: payload as object })
const get = (taskId: number, token = owner.token) => t.as(token, { method: 'GET', url: `${PATH}/${taskId}` })

const inTransit: CarrierSnapshot = {
  rawStatusCode: 'IT',
  standardStatus: 'in_transit',
  milestone: 'in_transit',
  carrierStatus: 'In transit',
  estimatedDeliveryAt: new Date('2026-12-03T18:00:00Z'),
  originAddress: { country: 'US', state: 'TN', city: 'Memphis', postalCode: '', address: '' },
  destinationAddress: { country: 'US', state: 'NY', city: 'New York', postalCode: '', address: '' },
  proofOfDelivery: null,
  events: [
    {
      eventTime: new Date('2026-11-28T10:00:00Z'),
      eventCode: 'IT',
      status: 'in_transit',
      statusInfo: 'In transit',
      description: 'Departed FedEx hub',
      exceptionDescription: '',
      country: 'US',
      state: 'TN',
      city: 'Memphis',
      postalCode: '',
      address: '',
      milestone: 'in_transit',
      key: 'IT-1',
      utcOffset: '-06:00',
    },
  ],
}

/** Claims the task as a FedEx worker would (every other due task put aside first). */
async function claim(taskId: number, carrierCode = 'FEDEX') {
  await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL WHERE task_id <> $1', [taskId])
  const [claimed] = await t.db.transaction((tx) => new RefreshRepository(t.db).claimDue(tx, carrierCode, [carrierCode], 10, 60_000))
  expect(claimed!.id).toBe(taskId)
  return claimed!
}

describe('PATCH /openapi/tracking-subscriptions/{taskId}', () => {
  it('moves the task: pending with no events, due now, keeping its id, page and callback; the change is listed', async () => {
    const taskId = await subscribe('FEDEX')
    const [applied] = await new RefreshApply(t.db, 86_400_000).apply([
      { task: await claim(taskId), snapshot: inTransit, fetchedAt: new Date(), nextRefreshInMs: 3_600_000 },
    ])
    expect(applied).toMatchObject({ applied: true })
    const before = (await get(taskId)).json().data
    expect(before).toMatchObject({ standardStatus: 'in_transit', events: [{ description: 'Departed FedEx hub' }] })

    const res = await patch(taskId, { carrierCode: 'usps' })
    expect(res.statusCode).toBe(200)
    const moved = res.json().data
    expect(moved).toMatchObject({
      taskId,
      carrierCode: 'USPS',
      trackingNumber: before.trackingNumber,
      callbackUrl: before.callbackUrl,
      trackingPageUrl: before.trackingPageUrl,
      standardStatus: 'pending',
      milestone: 'pending',
      carrierStatus: '',
      estimatedDeliveryAt: null,
      originAddress: { country: '', city: '' },
      active: true,
      events: [],
      carrierChanges: [{ previousCarrierCode: 'FEDEX', carrierCode: 'USPS', reason: 'user' }],
      carrierCorrection: null,
    })
    expect(Date.parse(moved.nextCheckAt)).toBeLessThanOrEqual(Date.now())
    // GET adds the recipient and the messages to the full task the change answers.
    expect(await get(taskId).then((r) => r.json().data)).toEqual({ ...moved, recipient: null, notifications: [] })
    // The schedule is the new carrier's: a USPS worker claims it, a FedEx worker does not.
    await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL WHERE task_id <> $1', [taskId])
    expect(await t.db.transaction((tx) => new RefreshRepository(t.db).claimDue(tx, 'FEDEX', ['FEDEX'], 10, 60_000))).toEqual([])
    expect((await claim(taskId, 'USPS')).trackingNumber).toBe(before.trackingNumber)
  })

  it('leaves a fetch in flight under the old carrier unapplied', async () => {
    const taskId = await subscribe('FEDEX')
    const inFlight = await claim(taskId)
    expect((await patch(taskId, { carrierCode: 'DHL' })).statusCode).toBe(200)
    const [outcome] = await new RefreshApply(t.db, 86_400_000).apply([{ task: inFlight, snapshot: inTransit, fetchedAt: new Date(), nextRefreshInMs: 1000 }])
    expect(outcome).toEqual({ applied: false })
    expect((await get(taskId)).json().data).toMatchObject({ carrierCode: 'DHL', standardStatus: 'pending', events: [] })
  })

  it('is 409 conflict naming the task that already tracks the number with that carrier, and moves nothing', async () => {
    const trackingNumber = number()
    const fedex = await subscribe('FEDEX', trackingNumber)
    const ups = await subscribe('UPS', trackingNumber)
    const res = await patch(fedex, { carrierCode: 'UPS' })
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 409, data: { error: 'conflict', taskId: ups } })
    expect(res.json().msg).toContain(`task ${ups}`)
    expect((await get(fedex)).json().data).toMatchObject({ carrierCode: 'FEDEX', carrierChanges: [] })
    // Another user's task of the same pair is no conflict.
    const theirs = await subscribe('FEDEX', trackingNumber, stranger)
    expect((await patch(theirs, { carrierCode: 'UPS' }, stranger.token)).statusCode).toBe(200)
  })

  it('allows 5 changes a task; the sixth is 409 limit_reached', async () => {
    const taskId = await subscribe('FEDEX')
    const codes = ['USPS', 'DHL', 'FEDEX', 'USPS', 'GLS']
    for (const code of codes) expect((await patch(taskId, { carrierCode: code })).statusCode).toBe(200)
    const sixth = await patch(taskId, { carrierCode: 'LAPOSTE' })
    expect(sixth.statusCode).toBe(409)
    expect(sixth.json().data.error).toBe('limit_reached')
    const task = (await get(taskId)).json().data
    expect(task.carrierCode).toBe('GLS')
    expect(task.carrierChanges.map((c: { carrierCode: string }) => c.carrierCode)).toEqual(codes)
  })

  it("changes nothing, and counts nothing, onto the task's own carrier", async () => {
    const taskId = await subscribe('FEDEX')
    const res = await patch(taskId, { carrierCode: 'FEDEX' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({ carrierCode: 'FEDEX', carrierChanges: [] })
  })

  it('picks with AUTO as subscribe does, and says what it found when it cannot', async () => {
    const taskId = await subscribe('FEDEX', UPS_NUMBER)
    expect((await patch(taskId, { carrierCode: 'AUTO' })).json().data).toMatchObject({ carrierCode: 'UPS', carrierChanges: [{ previousCarrierCode: 'FEDEX' }] })
    const unknown = await subscribe('FEDEX', 'NOFORMAT1')
    const res = await patch(unknown, { carrierCode: 'AUTO' })
    expect(res.statusCode).toBe(400)
    expect(res.json().data).toMatchObject({ error: 'carrier_not_detected', candidates: [], details: [{ field: 'carrierCode' }] })
  })

  it('refuses an unknown carrier, a bad body and another user’s task, moving nothing', async () => {
    const taskId = await subscribe('FEDEX')
    const unknown = await patch(taskId, { carrierCode: 'ACME' })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().data.error).toBe('unsupported_carrier')
    for (const body of [{}, { carrierCode: '' }, { carrierCode: 7 }, { carrierCode: 'UPS', trackingNumber: 'X' }]) {
      const res = await patch(taskId, body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().data.error).toBe('validation_error')
    }
    expect((await patch(taskId, { carrierCode: 'UPS' }, stranger.token)).statusCode).toBe(404)
    expect((await patch(987_654_321, { carrierCode: 'UPS' })).statusCode).toBe(404)
    expect((await get(taskId)).json().data).toMatchObject({ carrierCode: 'FEDEX', carrierChanges: [] })
  })

  it('tells tracking.carrier_changed to the endpoints that chose it, with the task as the change left it', async () => {
    const user = await t.createUser('endpoints')
    const chose = await t.services.endpoints.create(user.userId, { url: 'https://erp.example/events', eventTypes: ['tracking.carrier_changed'] })
    await t.services.endpoints.create(user.userId, { url: 'https://erp.example/status', eventTypes: ['tracking.status_changed'] })
    const taskId = await subscribe('FEDEX', number(), user)
    expect((await patch(taskId, { carrierCode: 'UPS' }, user.token)).statusCode).toBe(200)
    const rows = await t.db.query<{ endpoint_id: number; type: string; payload: { data: Record<string, unknown> } }>(
      'SELECT endpoint_id, event_type AS type, payload FROM deliveries WHERE task_id = $1',
      [taskId],
    )
    expect(rows.map((r) => [r.endpoint_id, r.type])).toEqual([[chose.endpointId, 'tracking.carrier_changed']])
    expect(rows[0]!.payload.data).toMatchObject({ taskId, carrierCode: 'UPS', previousCarrierCode: 'FEDEX', reason: 'user', events: [] })
    expect(rows[0]!.payload.data).not.toHaveProperty('latestWebhook')
  })
})
