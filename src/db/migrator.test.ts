import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from './database'
import { loadMigrations, migrate } from './migrator'
import { openDatabase } from './open-database'
import { eventsViewOf } from './task.sql'

// Migrations that rewrite data, run over data written before them. The embedded database, in
// memory, migrated step by step here (not through the test support, which migrates at once).
let db: Database
beforeAll(async () => {
  db = await openDatabase({ databaseUrl: undefined, dataDir: undefined, poolSize: 1 })
})
afterAll(() => db.close())

describe('migrations', () => {
  it('0008 rewrites the events kept on each task in the form the query endpoint sends', async () => {
    const all = loadMigrations()
    await migrate(db, all.filter((m) => m.version < 8))
    const [{ id: userId }] = (await db.query<{ id: number }>(`INSERT INTO api_users (name, webhook_secret) VALUES ('m', 'whsec_m') RETURNING id`)) as [{ id: number }]
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
    // As 0004 and the refresh before 0008 wrote it: PostgreSQL's own timestamp form.
    await db.query(all.find((m) => m.version === 4)!.sql.split('\n').filter((l) => !l.startsWith('ALTER')).join('\n'))
    const before = await db.query<{ events_view: { eventTime: string }[] }>('SELECT events_view FROM tracking_tasks WHERE id = $1', [taskId])
    expect(before[0]!.events_view.map((e) => e.eventTime)).toEqual(['2026-11-19T01:00:00+00:00', '2026-11-20T06:15:30.123999+00:00'])

    await migrate(db, all)
    const rows = await db.query<{ id: number; kept: string; rebuilt: string }>(
      `SELECT t.id, t.events_view::text AS kept, ${eventsViewOf('t.id')}::text AS rebuilt FROM tracking_tasks t ORDER BY t.id`,
    )
    expect(rows.map((r) => r.id)).toEqual([taskId, bare])
    expect(rows[0]!.kept).toBe(rows[0]!.rebuilt)
    expect((JSON.parse(rows[0]!.kept) as { eventTime: string }[]).map((e) => e.eventTime)).toEqual(['2026-11-19T01:00:00.000Z', '2026-11-20T06:15:30.123Z'])
    expect(rows[1]!.kept).toBe('[]')
  })
})
