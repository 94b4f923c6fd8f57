import { Type, type TSchema } from '@sinclair/typebox'
import { Ajv } from 'ajv'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../../test/support/test-app'
import { taskDocumentOf, type DocumentOptions } from '../../db/task-document.sql'
import { FULL_TASK, QUERY_TASK } from '../../domain/task-document'
import { allComponents } from './common.schema'
import './components'
import { FullTask, Task } from './task.schema'

// Every task document the database writes, rendered from a task that has every member filled (and
// one that has none), holds the members of the table in domain/task-document.ts, in its order, and
// passes the HTTP schema the OpenAPI document publishes for it.

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
// The documents' own format of every datetime, stricter than ISO 8601's.
const ajv = new Ajv({ allErrors: true, strict: false, formats: { 'date-time': ISO_UTC } })
for (const component of allComponents()) ajv.addSchema(component)

let t: TestApp
let full: number
let bare: number
beforeAll(async () => {
  t = await createTestApp()
  const { token, userId } = await t.createUser('documents')
  const subscribe = async (trackingNumber: string) =>
    (
      await t.as(token, {
        method: 'POST',
        url: '/openapi/tracking-subscriptions',
        payload: { carrierCode: 'FEDEX', trackingNumber, callbackUrl: 'https://a.example/' },
      })
    ).json().data.taskId as number
  full = await subscribe(`DOCFULL${Date.now()}`)
  bare = await subscribe(`DOCBARE${Date.now()}`)
  await t.db.query(
    `UPDATE tracking_tasks
        SET standard_status = 'in_transit', milestone = 'out_for_delivery', carrier_status = 'On vehicle', estimated_delivery_at = now(),
            origin_address = '{"country":"US","state":"TN","city":"MEMPHIS","postalCode":"38118","address":""}',
            stopped_at = now(), inactive_since = now()
      WHERE id = $1`,
    [full],
  )
  await t.db.query('UPDATE task_schedule SET last_fetched_at = now(), next_refresh_at = NULL WHERE task_id = $1', [full])
  await t.db.query(
    `INSERT INTO tracking_events (task_id, event_key, event_time, event_code, status, milestone) VALUES ($1, 'a', now(), 'OD', 'in_transit', 'out_for_delivery'), ($1, 'b', now(), 'ZZ', '', '')`,
    [full],
  )
  await t.db.query(
    `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, status, attempt_count, next_attempt_at, last_attempt_at, response_status_code)
     VALUES ($1, $2, 'msg_doc', '{}', 'retry_wait', 1, now(), now(), 503)`,
    [full, userId],
  )
})
afterAll(() => t.close())

async function render(document: 'query' | 'full', options: DocumentOptions, taskId: number): Promise<Record<string, unknown>> {
  const [row] = await t.db.query<{ document: string }>(`SELECT ${taskDocumentOf(document, options)} AS document FROM tracking_tasks t WHERE t.id = $1`, [
    taskId,
  ])
  return JSON.parse(row!.document) as Record<string, unknown>
}

const omitted = (options: DocumentOptions) => [...(options.events === false ? ['events'] : []), ...(options.latestWebhook === false ? ['latestWebhook'] : [])]

const CASES: [string, 'query' | 'full', DocumentOptions, TSchema][] = [
  ['the query answer', 'query', {}, Task],
  ["the callback webhook's task", 'query', { latestWebhook: false }, Type.Omit(Task, ['latestWebhook'])],
  ['the full task', 'full', {}, FullTask],
  ['a list item', 'full', { events: false }, FullTask],
  ["the endpoints' task", 'full', { latestWebhook: false }, Type.Omit(FullTask, ['latestWebhook'])],
]

describe('the task documents', () => {
  it.each(CASES)('%s: the table’s members in its order, passing its schema', async (_name, document, options, schema) => {
    const members = Object.keys(document === 'query' ? QUERY_TASK : FULL_TASK).filter((m) => !omitted(options).includes(m))
    for (const taskId of [full, bare]) {
      const value = await render(document, options, taskId)
      expect(Object.keys(value)).toEqual(members)
      const check = ajv.compile(schema)
      expect(check(value) ? [] : check.errors).toEqual([])
    }
  })

  it('writes latestWebhook with nextRetryAt only while the delivery waits to be retried', async () => {
    const value = await render('query', {}, full)
    expect(value.latestWebhook).toMatchObject({ status: 'retry_wait', attemptCount: 1, nextRetryAt: expect.stringMatching(ISO_UTC), responseStatusCode: 503 })
    await t.db.query(`UPDATE deliveries SET status = 'failed' WHERE webhook_id = 'msg_doc'`)
    expect((await render('full', {}, full)).latestWebhook).toMatchObject({ status: 'failed', nextRetryAt: null })
    expect((await render('query', {}, bare)).latestWebhook).toBeNull()
  })
})
