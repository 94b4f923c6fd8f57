import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fedexMeaning } from '../carriers/fedex/fedex.statuses'
import { UPARCEL_STATUSES } from '../carriers/uparcel/uparcel.statuses'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import type { Database } from './database'
import { eventsViewOf } from './events-view'
import { loadMigrations, migrate } from './migrator'

// An empty database, migrated here (not a copy of the test run's migrated template).
let database: TestDatabase
let db: Database
beforeAll(async () => {
  database = await createTestDatabase({ migrated: false, poolSize: 1 })
  db = database.db
})
afterAll(() => database.close())

describe('migrate', () => {
  it('applies each migration once, and rebuilds the events views when their shape changed', async () => {
    const applied = await migrate(db)
    expect(applied.map((m) => m.version)).toEqual(loadMigrations().map((m) => m.version))
    expect(await migrate(db)).toEqual([])

    const [{ id: userId }] = (await db.query<{ id: number }>(`INSERT INTO api_users (name, webhook_secret) VALUES ('m', 'whsec_m') RETURNING id`)) as [
      { id: number },
    ]
    const [{ id: taskId }] = (await db.query<{ id: number }>(
      `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url) VALUES ($1, 'FEDEX', 'M1', 'https://a.example/') RETURNING id`,
      [userId],
    )) as [{ id: number }]
    const [{ id: bare }] = (await db.query<{ id: number }>(
      `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url) VALUES ($1, 'FEDEX', 'M2', 'https://a.example/') RETURNING id`,
      [userId],
    )) as [{ id: number }]
    await db.query(
      `INSERT INTO tracking_events (task_id, event_key, event_time, event_code) VALUES ($1, 'a', '2026-11-20 08:15:30.123999+02', 'DP'), ($1, 'b', '2026-11-19 01:00:00+00', 'PU')`,
      [taskId],
    )
    // A view written in an earlier shape (PostgreSQL's own timestamps, json_build_object's
    // spacing), and a definition recorded as another: the next migrate rebuilds it.
    await db.query(
      `UPDATE tracking_tasks t SET events_view = (SELECT json_agg(json_build_object('eventTime', e.event_time, 'eventCode', e.event_code) ORDER BY e.event_time) FROM tracking_events e WHERE e.task_id = t.id) WHERE t.id = $1`,
      [taskId],
    )
    await db.query(`UPDATE derived_definitions SET fingerprint = 'earlier' WHERE name = 'events_view'`)

    await migrate(db)
    const rows = await db.query<{ id: number; kept: string; rebuilt: string }>(
      `SELECT t.id, t.events_view::text AS kept, ${eventsViewOf('t.id')}::text AS rebuilt FROM tracking_tasks t ORDER BY t.id`,
    )
    expect(rows.map((r) => r.id)).toEqual([taskId, bare])
    expect(rows[0]!.kept).toBe(rows[0]!.rebuilt)
    expect((JSON.parse(rows[0]!.kept) as { eventTime: string }[]).map((e) => e.eventTime)).toEqual(['2026-11-19T01:00:00.000Z', '2026-11-20T06:15:30.123Z'])
    expect(rows[1]!.kept).toBe('[]')
  })
})

describe('migration 0010 (milestones and endpoints)', () => {
  it('gives stored events and tasks their milestones as the carriers’ tables do, and deliveries their user', async () => {
    const old = await createTestDatabase({ migrated: false, poolSize: 1 })
    try {
      await migrate(
        old.db,
        loadMigrations().filter((m) => m.version < 10),
      )
      const [{ id: userId }] = (await old.db.query<{ id: number }>(`INSERT INTO api_users (name, webhook_secret) VALUES ('m', 'whsec_m') RETURNING id`)) as [
        { id: number },
      ]
      const task = async (carrier: string, number: string, status: string) =>
        (
          await old.db.query<{ id: number }>(
            `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, standard_status) VALUES ($1, $2, $3, 'https://a.example/', $4) RETURNING id`,
            [userId, carrier, number, status],
          )
        )[0]!.id
      // [carrier, code, its standard status, exception text]: each code's event, the newest last.
      const events: [string, string, string, string][] = [
        ['FEDEX', 'OC', 'pending', ''],
        ['FEDEX', 'PU', 'in_transit', ''],
        ['FEDEX', 'OD', 'in_transit', ''],
        ['FEDEX', 'HL', 'in_transit', ''],
        ['FEDEX', 'DE', 'exception', 'Customer not available or business closed'],
        ['FEDEX', 'DE', 'exception', 'Package damaged'],
        ['FEDEX', 'DL', 'delivered', ''],
        ['FEDEX', 'ZZ', '', ''],
        ['UPARCEL', 'POSTED', 'pending', ''],
        ['UPARCEL', 'OUT_FOR_DELIVERY', 'in_transit', ''],
        ['UPARCEL', 'FAILED_DELIVERY', 'exception', ''],
        ['UPARCEL', 'ON_HOLD', 'exception', ''],
      ]
      const ids: number[] = []
      for (const [i, [carrier, code, status, exception]] of events.entries()) {
        // One task per event, whose status is the event's (or in transit for an unknown code).
        const id = await task(carrier, `MIG${i}`, status || 'in_transit')
        ids.push(id)
        await old.db.query(
          `INSERT INTO tracking_events (task_id, event_key, event_time, event_code, status, exception_description) VALUES ($1, 'k', now(), $2, $3, $4)`,
          [id, code, status, exception],
        )
      }
      const quiet = await task('FEDEX', 'MIGQUIET', 'pending')
      await old.db.query(`INSERT INTO webhook_deliveries (task_id, webhook_id, payload) VALUES ($1, 'msg_mig', '{}')`, [ids[0]])

      await migrate(old.db)
      const tasks = await old.db.query<{ id: number; milestone: string; event_milestone: string | null }>(
        `SELECT t.id, t.milestone, (SELECT e.milestone FROM tracking_events e WHERE e.task_id = t.id) AS event_milestone FROM tracking_tasks t ORDER BY t.id`,
      )
      const expected = events.map(([carrier, code, , exception]) =>
        carrier === 'FEDEX' ? (fedexMeaning(code, code, exception)?.milestone ?? '') : (UPARCEL_STATUSES.meaning(code)?.milestone ?? ''),
      )
      expect(tasks.filter((t) => t.id !== quiet).map((t) => t.event_milestone)).toEqual(expected)
      // A task takes its newest event's milestone when it is one of its status's; otherwise its status's own.
      expect(tasks.filter((t) => t.id !== quiet).map((t) => t.milestone)).toEqual(expected.map((m) => m || 'in_transit'))
      expect(tasks.find((t) => t.id === quiet)!.milestone).toBe('pending')
      expect(await old.db.query(`SELECT user_id FROM deliveries`)).toEqual([{ user_id: userId }])
    } finally {
      await old.close()
    }
  })
})
