import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { insertDeliveries } from './refresh-writes'

// The outbox's bodies are sent and signed byte for byte as stored: whatever the characters, the
// stored text is what JSON.stringify wrote.

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const tricky = 'quote " backslash \\ slash / tab \t newline \n cr \r bell \u0007 é 漢字 🚚 \u2028 \u2029 {"a":[1,2]} \\n'

describe('insertDeliveries', () => {
  it('stores every body exactly as JSON.stringify wrote it, one row each, a shared body once per row', async () => {
    const { userId } = await t.createUser()
    const { taskId } = await t.services.subscriptions.subscribe(userId, { carrierCode: 'FEDEX', trackingNumber: `RW${Date.now()}`, callbackUrl: 'https://a.example/' })
    const shared = { type: 'tracking.events_added', data: { note: tricky, list: [tricky, '', ' '] } }
    const payloads = [{ type: 'tracking.status_changed', data: { description: tricky } }, shared, shared, { type: 'tracking.deleted', data: {} }]
    await t.db.transaction((tx) =>
      insertDeliveries(
        tx,
        payloads.map((payload) => ({ taskId, userId, endpointId: null, type: payload.type as 'tracking.status_changed', payload })),
      ),
    )
    const rows = await t.db.query<{ payload: string; event_type: string }>(`SELECT payload::text AS payload, event_type FROM webhook_deliveries WHERE task_id = $1 ORDER BY id`, [taskId])
    expect(rows.map((r) => r.payload)).toEqual(payloads.map((p) => JSON.stringify(p)))
    expect(rows.map((r) => r.event_type)).toEqual(payloads.map((p) => p.type))
  })
})
