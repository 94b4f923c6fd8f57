import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { eventToJson } from '../domain/task-document'
import type { TrackingEvent } from '../domain/tracking-task'
import { eventsViewOf } from './events-view'

// The events kept on a task row are written by SQL, the rest of the document by TypeScript: the
// two must write the same bytes for the same events, whatever the characters.

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const tricky = 'quote " backslash \\ slash / tab \t newline \n bell \u0007 del \u007f é 漢字 🚚 \u2028 \u2029'

describe('the events view', () => {
  it('is byte for byte what JSON.stringify writes for the same events, in time order', async () => {
    const { userId } = await t.createUser()
    const { taskId } = await t.services.subscriptions.subscribe(userId, {
      carrierCode: 'FEDEX',
      trackingNumber: `EV${Date.now()}`,
      callbackUrl: 'https://a.example/',
    })
    const base = {
      eventCode: 'AR',
      status: 'in_transit',
      statusInfo: 'In transit',
      description: tricky,
      exceptionDescription: '',
      country: 'US',
      state: 'TN',
      city: tricky,
      postalCode: '38118',
      address: '',
    }
    const events: TrackingEvent[] = [
      { ...base, eventTime: new Date('2026-11-20T06:15:30.123Z') },
      { ...base, eventTime: new Date('2026-01-01T00:00:00.000Z'), eventCode: 'PU', exceptionDescription: tricky },
      { ...base, eventTime: new Date('2026-12-31T23:59:59.999Z'), eventCode: 'DL' },
    ]
    for (const [i, e] of events.entries()) {
      await t.db.query(
        `INSERT INTO tracking_events (task_id, event_key, event_time, event_code, status, status_info, description, exception_description, country, state, city, postal_code, address)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          taskId,
          `k${i}`,
          e.eventTime,
          e.eventCode,
          e.status,
          e.statusInfo,
          e.description,
          e.exceptionDescription,
          e.country,
          e.state,
          e.city,
          e.postalCode,
          e.address,
        ],
      )
    }
    const [row] = await t.db.query<{ view: string }>(`SELECT ${eventsViewOf('$1::bigint')}::text AS view`, [taskId])
    const sorted = [...events].sort((a, b) => a.eventTime.getTime() - b.eventTime.getTime())
    expect(row!.view).toBe(JSON.stringify(sorted.map(eventToJson)))
  })
})
