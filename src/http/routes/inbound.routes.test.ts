import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../test/support/test-app'
import { createCarrierSimulator } from '../../carriers/registry'
import { SEVENTEENTRACK } from '../../carriers/seventeentrack/seventeentrack.route'
import { pushSignature } from '../../carriers/seventeentrack/seventeentrack.signature'
import { loadConfig } from '../../config/config'
import { connectDatabase } from '../../db/database'
import { InboundRepository } from '../../db/inbound.repository'
import { RefreshRepository } from '../../db/refresh.repository'
import { createServices } from '../../main/container'
import { InboundApplyService } from '../../services/inbound-apply.service'
import { RefreshApply } from '../../services/refresh-apply'
import { buildApp } from '../app'
import { royalMailPush, royalMailTask as linkedRoyalMailTask, type PushedScan } from '../../../test/support/seventeentrack-push'

// The inbound gateway over real HTTP on loopback and in-process: 17TRACK's pushes as its kit has
// them, signed with the key the service runs with (on the simulator: "simulator").
const KEY = 'simulator'
const kit = (name: string) => readFileSync(new URL(`../../../test/fixtures/carriers/17track/${name}`, import.meta.url))
const OFFICIAL = kit('push-tracking-updated-official-example.json')
let t: TestApp
let origin: string
let applier: InboundApplyService
let userId: number

beforeAll(async () => {
  t = await createTestApp()
  userId = (await t.createUser()).userId
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  applier = new InboundApplyService(t.db, new InboundRepository(t.db), new RefreshRepository(t.db), new RefreshApply(t.db, 30 * 86_400_000), {
    readers: new Map([[SEVENTEENTRACK.label, SEVENTEENTRACK]]),
    reconcileMs: new Map([[SEVENTEENTRACK.code, 21_600_000]]),
  })
})
afterAll(() => t.close())

const push = (body: Buffer | string, sign?: string | null) =>
  fetch(`${origin}/inbound/17track`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(sign === null ? {} : { sign: sign ?? pushSignature(Buffer.from(body), KEY) }) },
    body,
  })
const stored = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM inbound_pushes'))[0]!.n

const pushOf = (number: string, subStatus: string, scans: PushedScan[]) => royalMailPush(number, subStatus, scans)
let seq = 0
async function royalMailTask(user = userId): Promise<{ taskId: number; number: string }> {
  const number = `RM${Date.now() % 1_000_000}${++seq}GB`
  return { taskId: await linkedRoyalMailTask(t, user, number), number }
}
async function task(taskId: number) {
  const [row] = await t.db.query<{ standard_status: string; milestone: string; events: number; updated_at: Date; deliveries: number }>(
    `SELECT standard_status, milestone, updated_at,
            (SELECT count(*)::int FROM tracking_events WHERE task_id = $1) AS events,
            (SELECT count(*)::int FROM deliveries WHERE task_id = $1) AS deliveries
       FROM tracking_tasks WHERE id = $1`,
    [taskId],
  )
  return row!
}
const outcomes = async () =>
  Object.fromEntries((await t.db.query<{ id: number; outcome: string | null }>('SELECT id, outcome FROM inbound_pushes')).map((r) => [r.id, r.outcome]))

describe('POST /inbound/17track', () => {
  it('takes 17TRACK’s official example byte for byte, stores it before answering, and the same push twice once', async () => {
    const before = await stored()
    const first = await push(OFFICIAL)
    expect(first.status).toBe(200)
    expect(await first.json()).toEqual({ code: 200, msg: 'success', data: { received: true, duplicate: false } })
    expect(await stored()).toBe(before + 1)
    const again = await push(OFFICIAL)
    expect(((await again.json()) as { data: unknown }).data).toEqual({ received: true, duplicate: true })
    expect(await stored()).toBe(before + 1)
  })

  it.each([
    ['no sign header', null],
    ['a sign of another key', pushSignature(OFFICIAL, 'another-key')],
    ['a sign that is not hex', 'not-a-signature'],
    ['the HMAC of the body', 'cb29bf8d9b31afc1c33931f3f84410339636ceb9001c6a2f3845d8ea2bf1773a'],
  ])('answers 401 to %s, storing nothing', async (_what, sign) => {
    const before = await stored()
    const res = await push(OFFICIAL, sign)
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ code: 401, data: { error: 'unauthorized' } })
    expect(await stored()).toBe(before)
  })

  it('refuses the official example re-serialised under its original sign: the bytes are what is signed', async () => {
    const reserialised = JSON.stringify(JSON.parse(OFFICIAL.toString('utf8')))
    expect((await push(reserialised, pushSignature(OFFICIAL, KEY))).status).toBe(401)
  })

  it('answers 413 to a 50 MB body and 404 to a source it does not know, with the envelope', async () => {
    const huge = Buffer.alloc(50 * 1024 * 1024, 0x20)
    const res = await push(huge, 'a'.repeat(64)).catch((error: unknown) => error)
    // The service may close the connection once it has answered, before the upload ends.
    if (res instanceof Response) {
      expect(res.status).toBe(413)
      expect(((await res.json()) as { data: { error: string } }).data.error).toBe('payload_too_large')
    } else expect(String(res as Error)).toMatch(/fetch failed|EPIPE|ECONNRESET|socket/i)
    const inj = await t.app.inject({
      method: 'POST',
      url: '/inbound/17track',
      headers: { 'content-type': 'application/json', sign: 'a'.repeat(64) },
      payload: huge,
    })
    expect(inj.statusCode).toBe(413)
    const unknown = await t.app.inject({ method: 'POST', url: '/inbound/acme', headers: { 'content-type': 'application/json' }, payload: '{}' })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().data.error).toBe('not_found')
  })

  it('stays answering the API while one address floods it with unsigned pushes, storing none of them', async () => {
    const { token } = await t.createUser()
    const before = await stored()
    const flood = Array.from({ length: 400 }, (_, i) => push(`{"event":"TRACKING_UPDATED","n":${i}}`, 'f'.repeat(64)).then((r) => r.status))
    const api = await fetch(`${origin}/openapi/carriers`, { headers: { authorization: `Bearer ${token}` } })
    expect(api.status).toBe(200)
    expect(new Set(await Promise.all(flood))).toEqual(new Set([401]))
    expect(await stored()).toBe(before)
  })

  it('answers 503 when the database cannot take the push, so that 17TRACK sends it again', async () => {
    const config = loadConfig({})
    const db = connectDatabase('postgresql://postgres@127.0.0.1:1/none', 'postgres', { poolSize: 2, publicBaseUrl: config.publicBaseUrl })
    const app = await buildApp({ services: createServices(db, config), adminToken: ADMIN_TOKEN })
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/inbound/17track',
        headers: { 'content-type': 'application/json', sign: pushSignature(OFFICIAL, KEY) },
        payload: OFFICIAL,
      })
      expect(res.statusCode).toBe(503)
      expect(res.json().data.error).toBe('unavailable')
      expect(res.headers['retry-after']).toBe('1')
    } finally {
      await app.close()
      await db.close()
    }
  })
})

describe('a stored push, applied by the workers', () => {
  it('moves the tasks of its number through the refresh’s apply (events, status, a webhook), and a push that changes nothing writes nothing', async () => {
    const { taskId, number } = await royalMailTask()
    const other = await royalMailTask((await t.createUser()).userId)
    const body = pushOf(number, 'InTransit_Other', [
      { at: '2026-11-20T09:00:00Z', description: 'Item received', stage: 'PickedUp' },
      { at: '2026-11-19T18:00:00Z', description: 'Label created', stage: 'InfoReceived' },
    ])
    expect((await push(body)).status).toBe(200)
    await applier.runRound()
    expect(await task(taskId)).toMatchObject({ standard_status: 'in_transit', milestone: 'in_transit', events: 2, deliveries: 1 })
    // Another number's task is not touched.
    expect(await task(other.taskId)).toMatchObject({ standard_status: 'pending', events: 0 })

    const { updated_at } = await task(taskId)
    // The same news in another body (another key order): stored, applied, and nothing written.
    const same = JSON.stringify({ data: JSON.parse(body).data, event: 'TRACKING_UPDATED' })
    expect(((await (await push(same)).json()) as { data: { duplicate: boolean } }).data.duplicate).toBe(false)
    await applier.runRound()
    expect(await task(taskId)).toMatchObject({ events: 2, deliveries: 1, updated_at })
  })

  it('merges pushes that arrive out of order by event time: the older brings its events, not its status', async () => {
    const { taskId, number } = await royalMailTask()
    const label = { at: '2026-11-19T18:00:00Z', description: 'Label created', stage: 'InfoReceived' }
    const sorted = { at: '2026-11-20T09:00:00Z', description: 'Sorted at Heathrow' }
    const out = { at: '2026-11-21T07:00:00Z', description: 'Out for delivery', stage: 'OutForDelivery' }
    await push(pushOf(number, 'OutForDelivery_Other', [out, label]))
    await push(pushOf(number, 'InTransit_Other', [sorted, label]))
    await applier.runRound()
    expect(await task(taskId)).toMatchObject({ standard_status: 'in_transit', milestone: 'out_for_delivery', events: 3 })
  })

  it('answers a number no task has (or a deleted task’s) 200, counts it, and applies nothing; malformed JSON is kept as such', async () => {
    const { taskId, number } = await royalMailTask()
    await t.services.tasks.delete(userId, taskId)
    await push(pushOf(number, 'Delivered_Other', [{ at: '2026-11-21T10:00:00Z', description: 'Delivered' }]))
    await push(pushOf('ZZ000000000GB', 'Delivered_Other', [{ at: '2026-11-21T10:00:00Z', description: 'Delivered' }]))
    const malformed = '{"event":"TRACKING_UPDATED","data":'
    expect((await push(malformed)).status).toBe(200)
    await applier.runRound()
    const settled = Object.values(await outcomes())
    expect(settled.filter((o) => o === 'unknown_number').length).toBeGreaterThanOrEqual(2)
    expect(settled).toContain('malformed')
    expect(settled).not.toContain(null)
  })

  it('takes the simulator’s own 17TRACK pushes (what `npm start` shows): signed with its key, pushed once a stage', async () => {
    const { taskId, number } = await royalMailTask()
    let clock = Date.now()
    const sim = createCarrierSimulator({ stepMs: 60_000, now: () => clock })
    await sim.start()
    const client = SEVENTEENTRACK.createClient({ baseUrl: sim.urlOf(SEVENTEENTRACK.simulator), credentials: { apiKey: KEY }, timeoutMs: 2000 })
    try {
      await client.register([SEVENTEENTRACK.recordOf('ROYALMAIL', number)])
      expect(await sim.pushNow(origin)).toBeGreaterThanOrEqual(1)
      await applier.runRound()
      expect(await task(taskId)).toMatchObject({ milestone: 'info_received', events: 1 })
      // Nothing moved: nothing pushed. Two stages later: pushed again.
      const before = await stored()
      await sim.pushNow(origin)
      expect(await stored()).toBe(before)
      clock += 120_000
      await sim.pushNow(origin)
      await applier.runRound()
      expect(await task(taskId)).toMatchObject({ milestone: 'in_transit', events: 3 })
    } finally {
      await client.close()
      await sim.stop()
    }
  })

  it('leaves a push whose task a poll is fetching until that claim ends, then applies it', async () => {
    const { taskId, number } = await royalMailTask()
    await t.db.query(
      `UPDATE task_schedule SET next_refresh_at = CASE WHEN task_id = $1 THEN now() ELSE now() + interval '1 day' END WHERE next_refresh_at IS NOT NULL`,
      [taskId],
    )
    const refresh = new RefreshRepository(t.db)
    const [claim] = await t.db.transaction((tx) => refresh.claimDue(tx, SEVENTEENTRACK.code, ['ROYALMAIL'], 10, 60_000))
    expect(claim?.id).toBe(taskId)
    await push(pushOf(number, 'OutForDelivery_Other', [{ at: '2026-11-21T07:00:00Z', description: 'Out for delivery', stage: 'OutForDelivery' }]))
    await applier.runRound()
    expect((await task(taskId)).milestone).toBe('pending')
    await refresh.releaseClaim(claim!.leaseToken, [])
    await t.db.query('UPDATE inbound_pushes SET lease_until = now() WHERE applied_at IS NULL')
    await applier.runRound()
    expect((await task(taskId)).milestone).toBe('out_for_delivery')
  })
})
