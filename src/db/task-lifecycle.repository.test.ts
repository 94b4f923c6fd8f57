import './tracking-page.repository'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import type { TaskListFilters, TaskListQuery } from '../domain/task-list'
import type { Database } from './database'
import { TaskLifecycleRepository } from './task-lifecycle.repository'
import { listStatement, rangeCountStatement } from './task-list.sql'
import { registeredStatements } from './statements'
import './carrier-corrections'
import './task-deletes'
import './task.sql'

// Every list filter and sort reads an index of the user's tasks, never the whole table: the plans
// over 200,000 tasks of one user (and 20,000 of others), with the statistics of a real account.

let database: TestDatabase
const USER = 1

beforeAll(async () => {
  database = await createTestDatabase()
  const db = database.db
  await db.query(`INSERT INTO api_users (name, webhook_secret) SELECT 'u' || g, 'whsec_x' FROM generate_series(1, 3) g`)
  // A mature account: most tasks delivered long ago, some on their way, a few in trouble.
  await db.query(
    `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, external_reference_no, standard_status, milestone, created_at, updated_at, inactive_since)
     SELECT CASE WHEN g % 10 = 0 THEN 2 ELSE $1 END,
            CASE WHEN g % 10 < 6 THEN 'FEDEX' ELSE 'UPARCEL' END,
            'PLAN' || g, 'https://a.example/',
            CASE WHEN g % 2 = 0 THEN 'order-' || g ELSE '' END,
            CASE WHEN g % 100 < 75 THEN 'delivered' WHEN g % 100 < 93 THEN 'in_transit' WHEN g % 100 < 97 THEN 'pending' WHEN g % 100 < 99 THEN 'exception' ELSE 'returned' END,
            CASE WHEN g % 100 < 75 THEN 'delivered' WHEN g % 100 < 93 THEN CASE WHEN g % 5 = 0 THEN 'out_for_delivery' ELSE 'in_transit' END WHEN g % 100 < 97 THEN 'pending' WHEN g % 100 < 99 THEN 'exception' ELSE 'returned' END,
            now() - make_interval(mins => 220000 - g), now() - make_interval(mins => (220000 - g) / 2),
            CASE WHEN g % 100 < 75 OR g % 100 >= 99 THEN now() - make_interval(mins => (220000 - g) / 2) END
       FROM generate_series(1, 220000) g`,
    [USER],
  )
  // Vacuumed, as autovacuum leaves a table: its visibility map lets an index serve a read alone.
  await db.query('VACUUM ANALYZE tracking_tasks')
}, 120_000)
afterAll(() => database.close())

const query = (filters: TaskListFilters, sort: TaskListQuery['sort'] = '-createdAt', after?: TaskListQuery['after']): TaskListQuery => ({
  userId: USER,
  filters,
  sort,
  limit: 20,
  after,
  includeEvents: false,
})

/** Every plan this file has read: each index of tracking_tasks must be in one of them (the last test). */
const plans: string[] = []

async function explain(text: string, values: unknown[] = []): Promise<string> {
  const rows = await database.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)
  const read = rows.map((r) => r['QUERY PLAN']).join('\n')
  plans.push(read)
  return read
}

async function plan(filters: TaskListFilters, sort: TaskListQuery['sort'] = '-createdAt', after?: TaskListQuery['after'], readRange = false): Promise<string> {
  const { text, values } = listStatement(query(filters, sort, after), readRange)
  return explain(text, values)
}

/**
 * How many generic plans PostgreSQL made of each named statement over eight calls, made on one
 * connection (a prepared statement and its plans belong to the connection).
 */
async function genericPlans(statements: [string, () => { text: string; values: unknown[] }][]): Promise<Map<string, number>> {
  const client = await database.db.pool.connect()
  try {
    const plans = new Map<string, number>()
    for (const [name, statement] of statements) {
      for (let i = 0; i < 8; i++) await client.query({ ...statement(), name })
      const { rows } = await client.query<{ generic_plans: string }>('SELECT generic_plans FROM pg_prepared_statements WHERE name = $1', [name])
      plans.set(name, Number(rows[0]!.generic_plans))
    }
    return plans
  } finally {
    client.release()
  }
}

const FROM = new Date(Date.now() - 30 * 86_400_000)
const TO = new Date(Date.now() - 20 * 86_400_000)

describe('the list reads an index of the user’s tasks', () => {
  it.each<[string, TaskListFilters, TaskListQuery['sort'], RegExp]>([
    ['the default sort', {}, '-createdAt', /tracking_tasks_user_active_created_idx[\s\S]*tracking_tasks_user_inactive_created_idx/],
    ['createdAt ascending', {}, 'createdAt', /tracking_tasks_user_active_created_idx[\s\S]*tracking_tasks_user_inactive_created_idx/],
    ['-updatedAt', {}, '-updatedAt', /tracking_tasks_user_active_updated_idx[\s\S]*tracking_tasks_user_inactive_updated_idx/],
    ['updatedAt ascending', {}, 'updatedAt', /tracking_tasks_user_active_updated_idx[\s\S]*tracking_tasks_user_inactive_updated_idx/],
    ['a common status', { standardStatus: ['delivered'] }, '-createdAt', /tracking_tasks_user_\w+_idx/],
    ['a rare status', { standardStatus: ['returned', 'exception'] }, '-createdAt', /tracking_tasks_user_\w+_idx/],
    ['a carrier', { carrierCode: 'UPARCEL' }, '-createdAt', /tracking_tasks_user_\w+_idx/],
    ['a tracking number', { trackingNumber: 'PLAN12345' }, '-createdAt', /tracking_tasks_user_number_carrier_key/],
    ['an external reference', { externalReferenceNo: 'order-12346' }, '-createdAt', /tracking_tasks_user_reference_idx/],
    ['active tasks', { active: true }, '-createdAt', /tracking_tasks_user_active_created_idx/],
    ['active tasks, oldest change first', { active: true }, 'updatedAt', /tracking_tasks_user_active_updated_idx/],
    ['inactive tasks', { active: false }, '-createdAt', /tracking_tasks_user_inactive_created_idx/],
    ['inactive tasks, newest change first', { active: false }, '-updatedAt', /tracking_tasks_user_inactive_updated_idx/],
    [
      'a creation range',
      { createdFrom: FROM, createdTo: TO },
      '-createdAt',
      /tracking_tasks_user_active_created_idx[\s\S]*tracking_tasks_user_inactive_created_idx/,
    ],
    [
      'a change range',
      { updatedFrom: FROM, updatedTo: TO },
      '-updatedAt',
      /tracking_tasks_user_active_updated_idx[\s\S]*tracking_tasks_user_inactive_updated_idx/,
    ],
    ['a milestone', { milestone: ['out_for_delivery'] }, '-createdAt', /tracking_tasks_user_milestone_created_idx/],
    // Values no task of the user has: read from their index (nothing), not by walking every task.
    ['a milestone nobody has', { milestone: ['failed_attempt'] }, '-createdAt', /tracking_tasks_user_milestone_created_idx/],
    ['a status nobody has', { standardStatus: ['expired'] }, '-updatedAt', /tracking_tasks_user_milestone_updated_idx/],
    ['a carrier nobody uses', { carrierCode: 'UPS' }, '-createdAt', /tracking_tasks_user_carrier_created_idx/],
    ['a carrier nobody uses, by change', { carrierCode: 'UPS' }, 'updatedAt', /tracking_tasks_user_carrier_updated_idx/],
  ])('%s', async (_name, filters, sort, index) => {
    const text = await plan(filters, sort)
    expect(text).toMatch(index)
    expect(text).not.toMatch(/Seq Scan on tracking_tasks/)
  })

  it('reads each milestone of a status through the milestone index in the page’s order, and merges them', async () => {
    // in_transit is three milestones (in_transit, out_for_delivery, available_for_pickup), pending two.
    const text = await plan({ standardStatus: ['in_transit', 'pending'] }, '-createdAt', { key: new Date(Date.now() - 86_400_000).toISOString(), id: 150000 })
    expect(text).toMatch(/Merge Append/)
    expect(text.match(/Index (Only )?Scan Backward using tracking_tasks_user_milestone_created_idx/g)?.length).toBe(5)
    expect(text).toMatch(/Index Cond: .*ROW\(created_at, id\) < ROW/)
    expect(text).not.toMatch(/Seq Scan on tracking_tasks/)
  })

  it('reads a narrow range of the other time through an index of that time, and sorts it', async () => {
    // PostgreSQL 18 may read it through the carrier or milestone index of that time (skip scan).
    const day = { updatedFrom: new Date(Date.now() - 25 * 86_400_000), updatedTo: new Date(Date.now() - 24 * 86_400_000) }
    expect(await plan(day, '-createdAt', undefined, true)).toMatch(/Sort[\s\S]*Scan (using|on) tracking_tasks_user_(\w+_)?updated_idx/)
    const week = { createdFrom: new Date(Date.now() - 30 * 86_400_000), createdTo: new Date(Date.now() - 23 * 86_400_000) }
    expect(await plan(week, 'updatedAt', undefined, true)).toMatch(/Sort[\s\S]*Scan (using|on) tracking_tasks_user_(\w+_)?created_idx/)
  })

  it('counts a range of the other time through the active and the inactive tasks’ indexes of that time alone', async () => {
    const { text, values } = rangeCountStatement(query({ updatedFrom: FROM, updatedTo: TO }))!
    const read = await explain(text, values)
    for (const active of ['active', 'inactive']) expect(read).toMatch(new RegExp(`Index Only Scan using tracking_tasks_user_${active}_updated_idx`))
  })

  it('walks a wide range of the other time along the sort’s index alone, which carries that time', async () => {
    // Filtered on the table, each task the walk passes would cost a heap row.
    const wide = { updatedFrom: new Date(Date.now() - 60 * 86_400_000), updatedTo: new Date(Date.now() - 10 * 86_400_000) }
    // Without an activity filter, the active and the inactive tasks' indexes are each walked so.
    for (const active of ['active', 'inactive']) {
      expect(await plan(wide, '-createdAt')).toMatch(
        new RegExp(`Index Only Scan Backward using tracking_tasks_user_${active}_created_idx.*\\n.*\\n.*Filter: .*updated_at`),
      )
      const wideCreation = { createdFrom: new Date(Date.now() - 100 * 86_400_000) }
      expect(await plan(wideCreation, 'updatedAt')).toMatch(
        new RegExp(`Index Only Scan using tracking_tasks_user_${active}_updated_idx.*\\n.*\\n.*Filter: .*created_at`),
      )
    }
  })

  it('starts a later page at the cursor’s position in the index', async () => {
    // Active and inactive tasks each from the cursor on, merged in order: nothing is sorted.
    const text = await plan({}, '-createdAt', { key: new Date(Date.now() - 86_400_000).toISOString(), id: 150000 })
    expect(text).toMatch(/Merge Append/)
    for (const active of ['active', 'inactive'])
      expect(text).toMatch(
        new RegExp(`Index (Only )?Scan Backward using tracking_tasks_user_${active}_created_idx.*\\n.*Index Cond: .*ROW\\(created_at, id\\) < ROW`),
      )
    expect(text).not.toMatch(/Sort {2}\(cost/)
  })

  it('keeps one plan for a page: PostgreSQL does not plan the statement again on each call', async () => {
    // With the page size as a parameter the generic plan looked dearer than a custom one, and
    // every call was planned anew (140 µs of a page's 320 on the database's side).
    // A time range's values are hidden from the planner (listStatement's `time`): a custom plan,
    // made for them, looked cheaper than the generic one on every call (0.5 ms a page planning).
    const day = (daysAgo: number) => ({
      updatedFrom: new Date(Date.now() - daysAgo * 86_400_000),
      updatedTo: new Date(Date.now() - (daysAgo - 1) * 86_400_000),
    })
    const statements: [string, () => { text: string; values: unknown[] }][] = [
      ['plan_kept_default', () => listStatement(query({}))],
      ['plan_kept_status', () => listStatement(query({ standardStatus: ['in_transit'] }))],
      ['plan_kept_milestones', () => listStatement(query({ standardStatus: ['in_transit', 'pending'] }))],
      ['plan_kept_carrier', () => listStatement(query({ carrierCode: 'UPARCEL' }))],
      ['plan_kept_number', () => listStatement(query({ trackingNumber: `PLAN${Math.floor(Math.random() * 200_000)}` }))],
      ['plan_kept_inactive', () => listStatement(query({ active: false }, '-updatedAt'))],
      ['plan_kept_sorted_range', () => listStatement(query(day(10 + Math.random() * 100), '-updatedAt'))],
      ['plan_kept_narrow_range', () => listStatement(query(day(10 + Math.random() * 100)), true)],
      ['plan_kept_range_count', () => rangeCountStatement(query(day(10 + Math.random() * 100)))!],
    ]
    for (const [name, generic] of await genericPlans(statements)) expect({ name, generic: generic > 0 }).toEqual({ name, generic: true })
  })

  it('keeps one plan for a page of a reference, whatever the statistics guess of how many references there are', async () => {
    // ANALYZE reads a sample: over the bench's 1,000,000 tasks, 500,000 distinct references were
    // guessed 29,538, so a generic plan expected 17 tasks a reference, and a custom plan (which
    // sees that the value is not the common empty one) expected fewer and always looked cheaper:
    // every page was planned anew (0.54 ms a call against a tracking number's 0.34). This account's
    // statistics, guessed as low.
    await database.db.query('ALTER TABLE tracking_tasks ALTER COLUMN external_reference_no SET (n_distinct = 6000)')
    await database.db.query('ANALYZE tracking_tasks')
    try {
      // The reference index is partial (references that are not empty): a generic plan can use it only when the statement says so.
      const statement = () => listStatement(query({ externalReferenceNo: `order-${2 * Math.floor(Math.random() * 100_000)}` }))
      expect((await genericPlans([['plan_kept_reference', statement]])).get('plan_kept_reference')).toBeGreaterThan(0)
    } finally {
      await database.db.query('ALTER TABLE tracking_tasks ALTER COLUMN external_reference_no RESET (n_distinct)')
      await database.db.query('ANALYZE tracking_tasks')
    }
  })

  it('counts a range of the other time once for a listing’s pages, which follow each other as one long page would', async () => {
    const counted: unknown[] = []
    // The real database, with the range counts it is asked for noted.
    const noting = {
      query: (text: string, values?: unknown[], name?: string) => {
        if (name?.startsWith('task_list_range')) counted.push(values)
        return database.db.query(text, values, name)
      },
    } as unknown as Database
    const repository = new TaskLifecycleRepository(noting)
    const ids = (page: { position: { id: number } }[]) => page.map((task) => task.position.id)
    const narrow = { updatedFrom: new Date(Date.now() - 25 * 86_400_000), updatedTo: new Date(Date.now() - 24 * 86_400_000) }
    const wide = { updatedFrom: new Date(Date.now() - 60 * 86_400_000), updatedTo: new Date(Date.now() - 10 * 86_400_000) }
    for (const filters of [narrow, wide]) {
      counted.length = 0
      const first = await repository.list(query(filters))
      const second = await repository.list(query(filters, '-createdAt', first[19]!.position))
      const long = await repository.list({ ...query(filters), limit: 40 })
      expect([...ids(first.slice(0, 20)), ...ids(second.slice(0, 20))]).toEqual(ids(long.slice(0, 40)))
      expect(counted).toHaveLength(1)
    }
  })

  it('lists the same tasks whichever way a range of the other time is read', async () => {
    // Another user's tasks in no order of their ids: created at random over 90 days (many at the
    // same minute), changed up to ten days later.
    const user = 3
    await database.db.query(
      `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url, external_reference_no, standard_status, milestone, created_at, updated_at, inactive_since)
       SELECT $1, CASE WHEN g % 3 = 0 THEN 'UPARCEL' ELSE 'FEDEX' END, 'SHUFFLED' || g, 'https://a.example/', CASE WHEN g % 2 = 0 THEN 'ref-' || g ELSE '' END,
              CASE WHEN g % 4 = 0 THEN 'delivered' ELSE 'in_transit' END, CASE WHEN g % 4 = 0 THEN 'delivered' ELSE 'in_transit' END,
              c, c + make_interval(mins => floor(random() * 14400)::int), CASE WHEN g % 4 = 0 THEN now() END
         FROM generate_series(1, 4000) g, LATERAL (SELECT date_trunc('minute', now() - make_interval(mins => floor(random() * 129600)::int)) + make_interval(secs => g % 2) AS c) c`,
      [user],
    )
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000)
    const rows = async (q: TaskListQuery, narrowRange: boolean) => {
      const { text, values } = listStatement({ ...q, userId: user }, narrowRange)
      return (await database.db.query<{ id: number; sort_key: string | null }>(text, values))
        .filter((row) => row.sort_key !== null)
        .map((row) => [row.id, row.sort_key])
    }
    const days = { updatedFrom: at(40), updatedTo: at(30) }
    const walked = await rows(query(days), false)
    const cursor = { key: walked[7]![1] as string, id: walked[7]![0] as number }
    for (const q of [
      query(days),
      query(days, '-createdAt', cursor),
      query({ ...days, carrierCode: 'UPARCEL' }),
      query({ ...days, standardStatus: ['in_transit'] }, '-createdAt', cursor),
      query({ ...days, createdFrom: at(45) }),
      query({ createdFrom: at(50), createdTo: at(35) }, 'updatedAt'),
      query({ createdFrom: at(50), active: true, externalReferenceNo: '' }, '-updatedAt'),
      { ...query(days, 'createdAt'), limit: 100 },
    ]) {
      const expected = await rows(q, false)
      expect(expected.length).toBeGreaterThan(8)
      expect(await rows(q, true)).toEqual(expected)
    }
  })

  it('retention finds the longest-inactive tasks through their own index', async () => {
    expect(await explain(statement('retention_lock_inactive'), [30, 500])).toMatch(/tracking_tasks_inactive_idx/)
  })

  it("auto-correct's claim reads only the old pending tasks of the users who have it on, through the milestone index", async () => {
    await database.db.query('UPDATE api_users SET carrier_auto_correct = (id = $1)', [USER])
    try {
      const read = await explain(statement('correction_claim'), ['fingerprint', 20, 60_000])
      expect(read).toMatch(/Index Scan using tracking_tasks_user_milestone_created_idx on tracking_tasks/)
      expect(read).not.toMatch(/Seq Scan on tracking_tasks/)
    } finally {
      await database.db.query('UPDATE api_users SET carrier_auto_correct = NULL')
    }
  })
})

describe('the indexes of tracking_tasks', () => {
  it('are each read by a plan of a list page, a query, a tracking page, a subscribe or retention, or gone', async () => {
    // The query endpoint's lookups and the subscribe's conflict target, beside the list's plans above.
    expect(await explain(statement('task_by_id'), [USER, 1])).toMatch(/tracking_tasks_pkey/)
    expect(await explain(statement('task_by_number'), [USER, 'PLAN12345'])).toMatch(/tracking_tasks_user_number_carrier_key/)
    // The public tracking page, by its token.
    plans.push(await explain(statement('page_by_token'), ['QIrT0inzR7-2ETR-Y27KtL15QbIyxUgv']))
    const { rows } = await database.db.pool.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'tracking_tasks' ORDER BY 1`)
    const read = plans.join('\n')
    expect(rows.map((r) => r.indexname).filter((index) => !new RegExp(`\\b${index}\\b`).test(read))).toEqual([])
  })
})

/** A registered statement's text (src/db/statements.ts), by name. */
function statement(name: string): string {
  return registeredStatements().get(name)!.texts[0]!.text
}
