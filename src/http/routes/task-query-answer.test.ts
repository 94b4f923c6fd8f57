import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventsViewOf } from '../../db/events-view'
import { taskDocumentOf } from '../../db/task-document.sql'
import { statusChangedBody } from '../../domain/webhook-payload'
import { createTestApp, type TestApp } from '../../../test/support/test-app'

// The query's answer is the document the database writes, with the events as the task row keeps
// them (events_view). These tests hold it to the document the interface describes, written out by
// hand, and to the task in the status_changed webhook's body, written from the same row.

const PATH = '/openapi/tracking-subscriptions'
let t: TestApp
let token: string

beforeAll(async () => {
  t = await createTestApp()
  token = (await t.createUser('acme')).token
})
afterAll(() => t.close())

const tricky = 'quote " backslash \\ slash / tab \t newline \n bell \u0007 nul-free é 漢字 🚚 \u2028'

async function taskWithEverything(): Promise<number> {
  const res = await t.as(token, {
    method: 'POST',
    url: PATH,
    payload: { carrierCode: 'FEDEX', trackingNumber: `ALL${Date.now()}`, callbackUrl: 'https://shop.example/hook' },
  })
  const taskId = res.json().data.taskId as number
  // What no subscriber could send (control characters) may still come from a carrier: written here directly.
  await t.db.query(
    `UPDATE tracking_tasks
        SET standard_status = 'in_transit', carrier_status = $2, external_reference_no = $2, estimated_delivery_at = '2026-12-01 17:00:00.5+09',
            origin_address = $3, destination_address = $4
      WHERE id = $1`,
    [
      taskId,
      tricky,
      JSON.stringify({ country: 'JP', state: '東京都', city: 'Chiyoda', postalCode: '100-0001', address: '1-1 "Chiyoda"' }),
      JSON.stringify({ country: 'US', state: 'TN', city: 'MEMPHIS', postalCode: '38118', address: '' }),
    ],
  )
  // Times with microseconds and offsets, stored out of order: the answer is in eventTime order,
  // UTC, milliseconds cut as JavaScript's Date cuts them.
  await t.db.query(
    `INSERT INTO tracking_events (task_id, event_key, event_time, event_code, status, status_info, description, exception_description, country, state, city, postal_code, address)
     VALUES ($1, 'b', '2026-11-20 08:15:30.123999+02', 'DP', 'in_transit', 'Departed', $2, '', 'US', 'TN', 'MEMPHIS', '38118', 'Hub 1'),
            ($1, 'a', '2026-11-19 23:59:59.999999-05', 'PU', 'info_received', '', 'Picked up', $2, '', '', '', '', ''),
            ($1, 'c', '2026-11-21 00:00:00+00', 'AR', 'in_transit', 'Arrived', '', '', 'JP', '', '', '', '')`,
    [taskId, tricky],
  )
  await t.db.query(`UPDATE tracking_tasks t SET events_view = ${eventsViewOf('t.id')} WHERE t.id = $1`, [taskId])
  await t.db.query(
    `INSERT INTO deliveries (task_id, user_id, webhook_id, payload, status, attempt_count, next_attempt_at, last_attempt_at, response_status_code, error_message)
     VALUES ($1, (SELECT user_id FROM tracking_tasks WHERE id = $1), $2, '{}', 'retry_wait', 2, '2026-11-22 10:00:00.25+00', '2026-11-22 09:59:00.000001+00', 503, $3)`,
    [taskId, `msg_all_${taskId}`, tricky],
  )
  return taskId
}

const event = (fields: Partial<Record<string, string>>) => ({
  eventTime: '',
  eventCode: '',
  status: '',
  statusInfo: '',
  description: '',
  exceptionDescription: '',
  country: '',
  state: '',
  city: '',
  postalCode: '',
  address: '',
  ...fields,
})

describe('the query answer', () => {
  it('is the interface document, every field and character as stored', async () => {
    const taskId = await taskWithEverything()
    const res = await t.as(token, { method: 'GET', url: `${PATH}?taskId=${taskId}` })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(res.json()).toEqual({
      code: 200,
      msg: 'success',
      data: {
        taskId,
        carrierCode: 'FEDEX',
        trackingNumber: expect.stringMatching(/^ALL/),
        externalReferenceNo: tricky,
        standardStatus: 'in_transit',
        carrierStatus: tricky,
        estimatedDeliveryAt: '2026-12-01T08:00:00.500Z',
        originAddress: { country: 'JP', state: '東京都', city: 'Chiyoda', postalCode: '100-0001', address: '1-1 "Chiyoda"' },
        destinationAddress: { country: 'US', state: 'TN', city: 'MEMPHIS', postalCode: '38118', address: '' },
        events: [
          event({ eventTime: '2026-11-20T04:59:59.999Z', eventCode: 'PU', status: 'info_received', description: 'Picked up', exceptionDescription: tricky }),
          event({
            eventTime: '2026-11-20T06:15:30.123Z',
            eventCode: 'DP',
            status: 'in_transit',
            statusInfo: 'Departed',
            description: tricky,
            country: 'US',
            state: 'TN',
            city: 'MEMPHIS',
            postalCode: '38118',
            address: 'Hub 1',
          }),
          event({ eventTime: '2026-11-21T00:00:00.000Z', eventCode: 'AR', status: 'in_transit', statusInfo: 'Arrived', country: 'JP' }),
        ],
        latestWebhook: {
          status: 'retry_wait',
          attemptCount: 2,
          nextRetryAt: '2026-11-22T10:00:00.250Z',
          lastAttemptAt: '2026-11-22T09:59:00.000Z',
          responseStatusCode: 503,
          errorMessage: tricky,
        },
      },
    })
    // The members in the order the schema lists them, as the schema's serialiser wrote them.
    expect(Object.keys(res.json().data)).toEqual([
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

    // The same document in the status_changed webhook's body, written as the refresh writes it.
    const [row] = await t.db.query<{ task: string }>(
      `SELECT ${taskDocumentOf('query', { latestWebhook: false })} AS task FROM tracking_tasks t WHERE t.id = $1`,
      [taskId],
    )
    const { latestWebhook: _ignored, ...rest } = res.json().data
    const body = JSON.parse(statusChangedBody(row!.task, { standardStatus: 'pending', carrierStatus: '' }, new Date()).text) as {
      data: Record<string, unknown>
    }
    const { previousStandardStatus, previousCarrierStatus, ...data } = body.data
    expect([previousStandardStatus, previousCarrierStatus]).toEqual(['pending', ''])
    expect(data).toEqual(rest)
    expect(Object.keys(data)).toEqual(Object.keys(rest))
  })

  it('is the same for a task without events or deliveries, found by number', async () => {
    const tn = `BARE${Date.now()}`
    const taskId = (
      await t.as(token, { method: 'POST', url: PATH, payload: { carrierCode: 'UPARCEL', trackingNumber: tn, callbackUrl: 'https://shop.example/hook' } })
    ).json().data.taskId
    const res = await t.as(token, { method: 'GET', url: `${PATH}?trackingNumber=${tn}` })
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(res.body).toBe(
      `{"code":200,"data":{"taskId":${taskId},"carrierCode":"UPARCEL","trackingNumber":"${tn}","externalReferenceNo":"","standardStatus":"pending","carrierStatus":"","estimatedDeliveryAt":null,` +
        `"originAddress":{"country":"","state":"","city":"","postalCode":"","address":""},"destinationAddress":{"country":"","state":"","city":"","postalCode":"","address":""},` +
        `"events":[],"latestWebhook":null},"msg":"success"}`,
    )
  })
})
