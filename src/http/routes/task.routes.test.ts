import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../../test/support/test-app'
import { RefreshRepository } from '../../db/refresh.repository'
import { RefreshApply } from '../../services/refresh-apply'

let t: TestApp
let owner: { userId: number; token: string }
let stranger: { userId: number; token: string }
const PATH = '/openapi/tracking-subscriptions'

beforeAll(async () => {
  t = await createTestApp()
  owner = await t.createUser('owner')
  stranger = await t.createUser('stranger')
})
afterAll(() => t.close())

let seq = 0
async function subscribe(user = owner, fields: Partial<{ carrierCode: string; trackingNumber: string; externalReferenceNo: string }> = {}): Promise<number> {
  const body = { carrierCode: 'FEDEX', trackingNumber: `LC${Date.now()}${++seq}`, callbackUrl: 'https://shop.example/hook', ...fields }
  return (await t.services.subscriptions.subscribe(user.userId, body)).taskId
}
const get = (url: string, token = owner.token) => t.as(token, { method: 'GET', url })
const post = (url: string, token = owner.token) => t.as(token, { method: 'POST', url })

describe('GET /openapi/tracking-subscriptions/{taskId}', () => {
  it("answers the full task: the query's fields, its callback, its life, its events", async () => {
    const taskId = await subscribe(owner, { externalReferenceNo: 'order-7' })
    const res = await get(`${PATH}/${taskId}`)
    expect(res.statusCode).toBe(200)
    const data = res.json().data
    expect(Object.keys(data)).toEqual([
      'taskId',
      'carrierCode',
      'trackingNumber',
      'externalReferenceNo',
      'callbackUrl',
      'standardStatus',
      'milestone',
      'carrierStatus',
      'estimatedDeliveryAt',
      'predictedDeliveryAt',
      'prediction',
      'originAddress',
      'destinationAddress',
      'proofOfDelivery',
      'trackingPageUrl',
      'active',
      'stoppedAt',
      'createdAt',
      'updatedAt',
      'lastCheckedAt',
      'nextCheckAt',
      'carrierChanges',
      'carrierCorrection',
      'events',
      'latestWebhook',
      'recipient',
      'notifications',
    ])
    expect(data).toMatchObject({
      taskId,
      externalReferenceNo: 'order-7',
      callbackUrl: 'https://shop.example/hook',
      standardStatus: 'pending',
      milestone: 'pending',
      predictedDeliveryAt: null,
      prediction: null,
      active: true,
      stoppedAt: null,
      lastCheckedAt: null,
      proofOfDelivery: null,
      events: [],
      latestWebhook: null,
    })
    expect(Date.parse(data.createdAt)).toBeGreaterThan(Date.now() - 60_000)
    expect(data.nextCheckAt).not.toBeNull()
  })

  it("answers another user's task exactly as a missing one, and refuses an id that is not a positive integer", async () => {
    const taskId = await subscribe(owner)
    const foreign = await get(`${PATH}/${taskId}`, stranger.token)
    const missing = await get(`${PATH}/987654321`, stranger.token)
    expect(foreign.statusCode).toBe(404)
    expect(foreign.body).toBe(missing.body)
    for (const id of ['0', '-1', '1.5', 'abc', '99999999999999999999']) {
      const res = await get(`${PATH}/${id}`)
      expect(res.statusCode, id).toBe(400)
      expect(res.json().data).toEqual({ error: 'validation_error', details: [{ field: 'taskId', message: 'must be a positive integer' }] })
    }
  })

  it('leaves the original query answer exactly as it was: no new field', async () => {
    const taskId = await subscribe(owner)
    const data = (await get(`${PATH}?taskId=${taskId}`)).json().data
    expect(Object.keys(data)).toEqual([
      'taskId',
      'carrierCode',
      'trackingNumber',
      'externalReferenceNo',
      'standardStatus',
      'carrierStatus',
      'estimatedDeliveryAt',
      'originAddress',
      'destinationAddress',
      'events',
      'latestWebhook',
    ])
  })
})

describe('POST /openapi/tracking-subscriptions/{taskId}/stop', () => {
  it('stops fetching, idempotently: stoppedAt kept, the task never claimed again, a fetch in flight not applied', async () => {
    const taskId = await subscribe(owner)
    const refresh = new RefreshRepository(t.db)
    // A worker has claimed it and is fetching.
    await t.db.query('UPDATE task_schedule SET next_refresh_at = NULL WHERE task_id <> $1', [taskId])
    const [claim] = await t.db.transaction((tx) => refresh.claimDue(tx, 'FEDEX', ['FEDEX'], 10, 60_000))
    expect(claim!.id).toBe(taskId)

    const first = await post(`${PATH}/${taskId}/stop`)
    expect(first.statusCode).toBe(200)
    const stopped = first.json().data
    expect(stopped).toMatchObject({ taskId, active: false, nextCheckAt: null })
    expect(stopped.stoppedAt).not.toBeNull()
    const again = (await post(`${PATH}/${taskId}/stop`)).json().data
    expect(again.stoppedAt).toBe(stopped.stoppedAt)
    expect(again.updatedAt).toBe(stopped.updatedAt)

    const [outcome] = await new RefreshApply(t.db, 86_400_000).apply([{ task: claim!, snapshot: undefined, fetchedAt: new Date(), nextRefreshInMs: 1000 }])
    expect(outcome).toEqual({ applied: false })
    await t.db.query(`UPDATE task_schedule SET next_refresh_at = NULL WHERE task_id <> $1`, [taskId])
    expect(await t.db.transaction((tx) => refresh.claimDue(tx, 'FEDEX', ['FEDEX'], 10, 60_000))).toEqual([])
  })

  it("is 404 for another user's task, which stays active", async () => {
    const taskId = await subscribe(owner)
    expect((await post(`${PATH}/${taskId}/stop`, stranger.token)).statusCode).toBe(404)
    expect((await get(`${PATH}/${taskId}`)).json().data.active).toBe(true)
  })
})

describe('POST /openapi/tracking-subscriptions/{taskId}/refresh', () => {
  it('makes a stopped task due now and active again (202), at most once a minute (429 with Retry-After)', async () => {
    const taskId = await subscribe(owner)
    await post(`${PATH}/${taskId}/stop`)
    const wakeUps = t.wakeups.tasks
    const res = await post(`${PATH}/${taskId}/refresh`)
    expect(res.statusCode).toBe(202)
    const body = res.json()
    expect(body).toMatchObject({ code: 202, msg: 'success', data: { taskId } })
    expect(Math.abs(Date.parse(body.data.nextCheckAt) - Date.now())).toBeLessThan(10_000)
    // The workers are woken (here, and elsewhere by a NOTIFY) rather than left to poll.
    expect(t.wakeups.tasks).toBe(wakeUps + 1)
    expect((await get(`${PATH}/${taskId}`)).json().data).toMatchObject({ active: true, stoppedAt: null })

    const soon = await post(`${PATH}/${taskId}/refresh`)
    expect(soon.statusCode).toBe(429)
    expect(soon.json().data).toEqual({ error: 'rate_limited' })
    expect(Number(soon.headers['retry-after'])).toBeGreaterThan(50)
    expect(Number(soon.headers['retry-after'])).toBeLessThanOrEqual(60)
    await t.db.query(`UPDATE tracking_tasks SET refresh_requested_at = now() - interval '61 seconds' WHERE id = $1`, [taskId])
    expect((await post(`${PATH}/${taskId}/refresh`)).statusCode).toBe(202)
  })

  it('reactivates an expired task with its expiry clock started again', async () => {
    const taskId = await subscribe(owner)
    await t.db.query(
      `WITH task AS (UPDATE tracking_tasks SET standard_status = 'expired', inactive_since = now() - interval '3 days', last_new_event_at = now() - interval '40 days' WHERE id = $1 RETURNING id)
       UPDATE task_schedule SET next_refresh_at = NULL WHERE task_id IN (SELECT id FROM task)`,
      [taskId],
    )
    expect((await post(`${PATH}/${taskId}/refresh`)).statusCode).toBe(202)
    const [row] = await t.db.query<{ fresh: boolean; inactive_since: Date | null }>(
      `SELECT last_new_event_at > now() - interval '1 minute' AS fresh, inactive_since FROM tracking_tasks WHERE id = $1`,
      [taskId],
    )
    expect(row).toEqual({ fresh: true, inactive_since: null })
  })

  it("is 404 for another user's task", async () => {
    expect((await post(`${PATH}/${await subscribe(owner)}/refresh`, stranger.token)).statusCode).toBe(404)
  })
})

describe('DELETE /openapi/tracking-subscriptions/{taskId}', () => {
  it('deletes the task with its events, deliveries and attempts; subscribing again makes a new task', async () => {
    const trackingNumber = `DEL${Date.now()}`
    const taskId = await subscribe(owner, { trackingNumber })
    await t.db.query(`INSERT INTO tracking_events (task_id, event_key, event_time) VALUES ($1, 'k', now())`, [taskId])
    const [delivery] = await t.db.query<{ id: number }>(
      `INSERT INTO deliveries (task_id, user_id, webhook_id, payload) VALUES ($1, (SELECT user_id FROM tracking_tasks WHERE id = $1), $2, '{}') RETURNING id`,
      [taskId, `msg_del${taskId}`],
    )
    await t.db.query(`INSERT INTO delivery_attempts (delivery_id, attempt_number, started_at, duration_ms) VALUES ($1, 1, now(), 5)`, [delivery!.id])

    expect((await t.as(stranger.token, { method: 'DELETE', url: `${PATH}/${taskId}` })).statusCode).toBe(404)
    const res = await t.as(owner.token, { method: 'DELETE', url: `${PATH}/${taskId}` })
    expect(res.json()).toEqual({ code: 200, data: { taskId, deleted: true }, msg: 'success' })
    for (const url of [`${PATH}/${taskId}`, `${PATH}?taskId=${taskId}`, `${PATH}?trackingNumber=${trackingNumber}`, `${PATH}/${taskId}/webhooks`])
      expect((await get(url)).statusCode, url).toBe(404)
    const [left] = await t.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM tracking_events WHERE task_id = $1) + (SELECT count(*) FROM deliveries WHERE task_id = $1) + (SELECT count(*) FROM delivery_attempts WHERE delivery_id = $2) AS n`,
      [taskId, delivery!.id],
    )
    expect(Number(left!.n)).toBe(0)
    expect((await t.as(owner.token, { method: 'DELETE', url: `${PATH}/${taskId}` })).statusCode).toBe(404)

    const again = await t.services.subscriptions.subscribe(owner.userId, { carrierCode: 'FEDEX', trackingNumber, callbackUrl: 'https://shop.example/hook' })
    expect(again).toMatchObject({ result: 'created' })
    expect(again.taskId).toBeGreaterThan(taskId)
  })

  it('refuses TRUNCATE, which would leave children behind', async () => {
    await expect(t.db.query('TRUNCATE tracking_tasks CASCADE')).rejects.toThrow(/never truncated/)
  })
})
