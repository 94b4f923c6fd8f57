import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../support/test-app'

/**
 * Every endpoint that takes an id, with one user's ids and another user's token: always 404,
 * exactly as for ids that do not exist, and the owner's data untouched.
 */
let t: TestApp
let alice: { userId: number; token: string }
let mallory: { userId: number; token: string }
let aliceTask: number
const aliceNumber = 'TENANT1'
const aliceWebhook = 'msg_a11ce00000000001'

beforeAll(async () => {
  t = await createTestApp()
  alice = await t.createUser('alice')
  mallory = await t.createUser('mallory')
  aliceTask = (
    await t.services.subscriptions.subscribe(alice.userId, {
      carrierCode: 'FEDEX',
      trackingNumber: aliceNumber,
      callbackUrl: 'https://alice.example/hook',
      externalReferenceNo: 'alice-ref',
    })
  ).taskId
  await t.db.query(
    `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, status, attempt_count) VALUES ($1, (SELECT user_id FROM tracking_tasks WHERE id = $1), $2, '{}', 'failed', 8)`,
    [aliceTask, aliceWebhook],
  )
})
afterAll(() => t.close())

const notFound = { code: 404, data: { error: 'not_found' } }

describe('cross-tenant matrix', () => {
  const endpoints = (task: number | string, webhook: string) => [
    { method: 'GET' as const, url: `/openapi/tracking-subscriptions?taskId=${task}` },
    { method: 'GET' as const, url: `/openapi/tracking-subscriptions?trackingNumber=${aliceNumber}` },
    { method: 'GET' as const, url: `/openapi/tracking-subscriptions/${task}/webhooks` },
    { method: 'POST' as const, url: `/openapi/tracking-subscriptions/${task}/webhooks/${webhook}/redeliver` },
  ]

  it("answers 404 to another user for every endpoint that names alice's task, exactly as for a missing one", async () => {
    const foreign = endpoints(aliceTask, aliceWebhook)
    const missing = endpoints(987654321, 'msg_0000000000000000')
    for (let i = 0; i < foreign.length; i++) {
      const asMallory = await t.as(mallory.token, foreign[i]!)
      const nothing = await t.as(mallory.token, missing[i]!)
      expect(asMallory.statusCode, foreign[i]!.url).toBe(404)
      expect(asMallory.json()).toMatchObject(notFound)
      // Same status, same body: nothing tells "someone else's" from "does not exist".
      expect(asMallory.body).toBe(nothing.body)
    }
  })

  it("leaves alice's task and delivery untouched", async () => {
    const [task] = await t.db.query(`SELECT callback_url, external_reference_no FROM tracking_tasks WHERE id = $1`, [aliceTask])
    expect(task).toEqual({ callback_url: 'https://alice.example/hook', external_reference_no: 'alice-ref' })
    const [delivery] = await t.db.query(`SELECT status FROM deliveries WHERE webhook_id = $1`, [aliceWebhook])
    expect(delivery).toEqual({ status: 'failed' })
  })

  it("gives mallory a task of her own when she subscribes alice's number, never alice's", async () => {
    const single = await t.as(mallory.token, {
      method: 'POST',
      url: '/openapi/tracking-subscriptions',
      payload: { carrierCode: 'FEDEX', trackingNumber: aliceNumber, callbackUrl: 'https://mallory.example/' },
    })
    expect(single.json().data).toMatchObject({ result: 'created' })
    expect(single.json().data.taskId).not.toBe(aliceTask)
    const batch = await t.as(mallory.token, {
      method: 'POST',
      url: '/openapi/tracking-subscriptions/batch',
      payload: { items: [{ carrierCode: 'FEDEX', trackingNumber: aliceNumber, callbackUrl: 'https://mallory.example/2' }] },
    })
    expect(batch.json().data.results[0]).toMatchObject({ result: 'reused', taskId: single.json().data.taskId })
    const mine = await t.as(mallory.token, { method: 'GET', url: `/openapi/tracking-subscriptions?trackingNumber=${aliceNumber}` })
    expect(mine.json().data).toMatchObject({ taskId: single.json().data.taskId, externalReferenceNo: '' })
    const [task] = await t.db.query(`SELECT callback_url FROM tracking_tasks WHERE id = $1`, [aliceTask])
    expect(task).toEqual({ callback_url: 'https://alice.example/hook' })
  })

  it('still lets alice see her own', async () => {
    for (const request of endpoints(aliceTask, aliceWebhook)) expect((await t.as(alice.token, request)).statusCode, request.url).toBe(200)
  })
})
