import { expect } from 'vitest'
import type { TestApp } from './test-app'

/** The console team test's realistic data (src/http/console/console-team.browser.test.ts). */
/** 60 API users (one with a long name, endpoints with long URLs), 30 of its tasks, failing deliveries with 12 attempts each. */
export async function seedTeamData(t: TestApp, longName: string, longUrl: string) {
  const long = await t.createUser(longName)
  const longUserId = long.userId
  const longToken = long.token
  // A name with no space to break at: a heading must wrap it anyway.
  const unbrokenUserId = (await t.createUser(`Versandhaus${'Ü'.repeat(89)}`)).userId
  for (let i = 2; i < 60; i++) await t.createUser(`Shop ${String(i).padStart(2, '0')} ${i % 7 === 0 ? 'Versandhaus' : 'Boutique'}`)
  const endpoint = await t.services.endpoints.create(longUserId, { url: longUrl, eventTypes: ['tracking.status_changed'], description: 'ERP' })
  await t.services.endpoints.create(longUserId, { url: `${longUrl}&copy=2`, eventTypes: ['tracking.status_changed'] })
  const items = Array.from({ length: 30 }, (_, i) => ({
    carrierCode: ['FEDEX', 'UPS', 'UPARCEL'][i % 3],
    trackingNumber: ['FA', '1ZEX000000', 'UP241122'][i % 3] + String(1000 + i),
    callbackUrl: `${longUrl}&task=${i}`,
    externalReferenceNo: `order-2026-11-${String(i).padStart(4, '0')}-${'x'.repeat(20)}`,
  }))
  const res = await t.as(longToken, { method: 'POST', url: '/openapi/tracking-subscriptions/batch', payload: { items } })
  const results = (res.json() as { data: { results: { result: string; taskId: number }[] } }).data.results
  expect(results.map((r) => r.result)).toEqual(Array(30).fill('created'))
  const taskIds = results.map((r) => r.taskId)
  const longTaskId = taskIds[0]!
  // Deliveries that failed for good and one waiting for a retry, each after 12 attempts, made in
  // the current hour (a second apart, newest first), whatever the minute the test runs at: the
  // overview's 24 hours count them by hour, and minutes before now straddled an hour at :30-:33.
  for (const [i, taskId] of taskIds.slice(0, 4).entries()) {
    const [delivery] = await t.db.query<{ id: number }>(
      `INSERT INTO deliveries (task_id, user_id, endpoint_id, target, webhook_id, payload, status, attempt_count, next_attempt_at, created_at)
       VALUES ($1, $2, $3, CASE WHEN $3::bigint IS NULL THEN 'callback' ELSE 'endpoint' END, $4, '{}', $5, 12, CASE WHEN $5 = 'retry_wait' THEN now() + interval '1 hour' END,
               least(now(), date_trunc('hour', now()) + make_interval(secs => 40 - $6)))
       RETURNING id`,
      [taskId, longUserId, i % 2 === 0 ? endpoint.endpointId : null, `msg_2Zx${i}long0webhook0identifier0abcdef`, i === 3 ? 'retry_wait' : 'failed', 30 + i],
    )
    for (let n = 1; n <= 12; n++) {
      await t.db.query(
        `INSERT INTO delivery_attempts (delivery_id, attempt_number, started_at, duration_ms, response_status_code, error_message, response_body_excerpt)
         VALUES ($1, $2, now() - make_interval(mins => 40 - $2), 15000, $3, $4, $5)`,
        [
          delivery!.id,
          n,
          n % 2 ? 0 : 503,
          n % 2 ? 'timed out after 15000 ms waiting for the receiving host to answer' : '',
          n % 2 ? '' : '<html>Service Unavailable: '.padEnd(300, 'x'),
        ],
      )
    }
  }
  return { longUserId, longTaskId, longToken, unbrokenUserId }
}
