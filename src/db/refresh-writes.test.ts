import { CALLBACK } from '../domain/outbox'
import { NO_TRANSIT } from '../domain/transit-times'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { insertDeliveries } from './outbox-writes'
import type { ProofOfDelivery } from '../domain/tracking-task'
import { updateTasks } from './refresh-writes'

// The outbox's bodies are sent and signed byte for byte as stored, and a task's addresses go into
// its full task as stored: whatever the characters, the stored text is what JSON.stringify wrote.

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const tricky = 'quote " backslash \\ slash / tab \t newline \n cr \r bell \u0007 é 漢字 🚚 \u2028 \u2029 {"a":[1,2]} \\n'

describe('insertDeliveries', () => {
  it('stores every body exactly as JSON.stringify wrote it, one row each, a shared body once per row', async () => {
    const { userId } = await t.createUser()
    const { taskId } = await t.services.subscriptions.subscribe(userId, {
      carrierCode: 'FEDEX',
      trackingNumber: `RW${Date.now()}`,
      callbackUrl: 'https://a.example/',
    })
    const shared = { type: 'tracking.events_added', data: { note: tricky, list: [tricky, '', ' '] } }
    const payloads = [{ type: 'tracking.status_changed', data: { description: tricky } }, shared, shared, { type: 'tracking.deleted', data: {} }]
    await t.db.transaction((tx) =>
      insertDeliveries(
        tx,
        payloads.map((payload) => ({ taskId, userId, channel: 'webhook', target: CALLBACK, type: payload.type as 'tracking.status_changed', payload })),
      ),
    )
    const rows = await t.db.query<{ payload: string; event_type: string }>(
      `SELECT payload::text AS payload, event_type FROM deliveries WHERE task_id = $1 ORDER BY id`,
      [taskId],
    )
    expect(rows.map((r) => r.payload)).toEqual(payloads.map((p) => JSON.stringify(p)))
    expect(rows.map((r) => r.event_type)).toEqual(payloads.map((p) => p.type))
  })
})

describe('updateTasks', () => {
  it('stores an address as the full task writes it, whatever the order of its members, and reads it back so', async () => {
    const { userId } = await t.createUser()
    const { taskId } = await t.services.subscriptions.subscribe(userId, {
      carrierCode: 'FEDEX',
      trackingNumber: `RA${Date.now()}`,
      callbackUrl: 'https://a.example/',
    })
    // Members in another order than the interface's, as a carrier mapper might build them.
    const origin = { address: `1-1 "Chiyoda" ${tricky}`, postalCode: '100-0001', city: 'Chiyoda', state: '東京都', country: 'JP' }
    await t.db.transaction((tx) =>
      updateTasks(tx, [
        {
          id: taskId,
          transit: NO_TRANSIT,
          update: {
            standardStatus: 'in_transit',
            milestone: 'in_transit',
            carrierStatus: 'Picked up',
            estimatedDeliveryAt: undefined,
            originAddress: origin,
            destinationAddress: undefined,
            proofOfDelivery: undefined,
            lastNewEventAt: null,
            statusChanged: true,
            milestoneChanged: true,
            etaChanged: false,
          },
          gainedEvents: false,
          fingerprint: 'a fingerprint',
          nextRefreshInMs: 60_000,
          tells: false,
          full: false,
        },
      ]),
    )
    const written = JSON.stringify({ country: 'JP', state: '東京都', city: 'Chiyoda', postalCode: '100-0001', address: origin.address })
    const empty = JSON.stringify({ country: '', state: '', city: '', postalCode: '', address: '' })
    const [row] = await t.db.query<{ origin: string; destination: string }>(
      `SELECT origin_address::text AS origin, destination_address::text AS destination FROM tracking_tasks WHERE id = $1`,
      [taskId],
    )
    expect(row).toEqual({ origin: written, destination: empty })
    const full = await t.services.tasks.get(userId, taskId)
    expect(full).toContain(`"originAddress":${written},"destinationAddress":${empty}`)
  })
})

describe('a proof of delivery', () => {
  it('is written as the full task shows it, and kept by a fetch that returns none (as the ETA)', async () => {
    const { userId } = await t.createUser()
    const { taskId } = await t.services.subscriptions.subscribe(userId, {
      carrierCode: 'FEDEX',
      trackingNumber: `RP${Date.now()}`,
      callbackUrl: 'https://a.example/',
    })
    const write = (proofOfDelivery: ProofOfDelivery | undefined) =>
      t.db.transaction((tx) =>
        updateTasks(tx, [
          {
            id: taskId,
            transit: NO_TRANSIT,
            update: {
              standardStatus: 'delivered',
              milestone: 'delivered',
              carrierStatus: 'Delivered',
              estimatedDeliveryAt: undefined,
              originAddress: undefined,
              destinationAddress: undefined,
              proofOfDelivery,
              lastNewEventAt: null,
              statusChanged: true,
              milestoneChanged: true,
              etaChanged: false,
            },
            gainedEvents: false,
            fingerprint: 'a fingerprint',
            nextRefreshInMs: 60_000,
            tells: false,
            full: false,
          },
        ]),
      )
    // Members out of order and a tricky name: written in the document's order, escaped as JSON.stringify does.
    await write({ documentUrl: null, signatureAvailable: true, location: 'Front Door', signedBy: tricky })
    const shown = JSON.stringify({ signedBy: tricky, location: 'Front Door', signatureAvailable: true, documentUrl: null })
    expect(await t.services.tasks.get(userId, taskId)).toContain(`"proofOfDelivery":${shown},"trackingPageUrl":`)
    await write(undefined)
    expect(await t.services.tasks.get(userId, taskId)).toContain(`"proofOfDelivery":${shown},"trackingPageUrl":`)
    // The query answer is the interface's: no such member.
    expect(await t.services.subscriptions.find(userId, { taskId: String(taskId) })).not.toContain('proofOfDelivery')
  })
})
