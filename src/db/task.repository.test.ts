import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countStatements as countStatementsOf } from '../../test/support/count-statements'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { parseDocument } from '../domain/task-document'
import { newPageTokens } from './page-token'
import { TaskRepository } from './task.repository'
import { INSERT_MISSING_SQL, TASK_BY_ID_SQL, TASK_BY_NUMBER_SQL, TASKS_BY_ID_MANY_SQL, TASKS_BY_NUMBER_MANY_SQL } from './task.sql'

let t: TestApp
let userId: number

beforeAll(async () => {
  t = await createTestApp()
  userId = (await t.createUser()).userId
})
afterAll(() => t.close())

const countStatements = (work: () => Promise<unknown>) => countStatementsOf(t.db, work)

const item = (n: string) => ({ carrierCode: 'FEDEX', trackingNumber: n, callbackUrl: 'https://shop.example/hook' })

describe('statements per request', () => {
  it('a subscribe is one statement', async () => {
    expect(await countStatements(() => t.services.subscriptions.subscribe(userId, item('ONE-1')))).toBe(1)
    expect(await countStatements(() => t.services.subscriptions.subscribe(userId, item('ONE-1')))).toBe(1)
  })

  it('a batch is the same number of statements for 1, 10 and 100 items, new or existing', async () => {
    const counts = []
    for (const size of [1, 10, 100]) {
      const items = Array.from({ length: size }, (_, i) => item(`STMT-${size}-${i}`))
      counts.push(await countStatements(() => t.services.subscriptions.subscribeBatch(userId, { items })))
      counts.push(await countStatements(() => t.services.subscriptions.subscribeBatch(userId, { items })))
    }
    // One statement: it reads batchMaxItems, inserts the missing tasks and finds the others.
    expect(counts).toEqual([1, 1, 1, 1, 1, 1])
  })
})

describe('concurrent batches', () => {
  it('share statements; each gets its own answers, and one over batchMaxItems writes nothing', async () => {
    const other = (await t.createUser()).userId
    await t.services.subscriptions.subscribeBatch(userId, { items: [item('CB-0-0')] })
    await t.services.settings.update({ batchMaxItems: 5 })
    try {
      // Ten batches of five items (batch 0's first item exists), the same numbers for another
      // user, one batch repeating batch 1's numbers, and one of six items: too many.
      const batch = (b: number) => Array.from({ length: 5 }, (_, i) => item(`CB-${b}-${i}`))
      const calls = [
        ...Array.from({ length: 10 }, (_, b) => ({ userId, items: batch(b) })),
        { userId: other, items: batch(0) },
        { userId, items: batch(1) },
        { userId, items: [...batch(99), item('CB-99-5')] },
      ]
      let answers: (Awaited<ReturnType<typeof t.services.subscriptions.subscribeBatch>> | Error)[] = []
      const statements = await countStatements(async () => {
        answers = await Promise.all(calls.map((c) => t.services.subscriptions.subscribeBatch(c.userId, { items: c.items }).catch((e: Error) => e)))
      })
      expect(statements).toBeLessThan(calls.length / 2)
      const results = answers.slice(0, 12) as Awaited<ReturnType<typeof t.services.subscriptions.subscribeBatch>>[]
      expect(results[0]!.map((r) => r.result)).toEqual(['reused', 'created', 'created', 'created', 'created'])
      for (const b of results.slice(1, 11)) expect(b.map((r) => r.result)).toEqual(Array(5).fill('created'))
      // The repeat of batch 1 waited for it (same keys) and found its tasks.
      expect(results[11]!.map((r) => r.result)).toEqual(Array(5).fill('reused'))
      expect(results[11]!.map((r) => r.taskId)).toEqual(results[1]!.map((r) => r.taskId))
      expect(new Set(results.slice(0, 11).flatMap((b) => b.map((r) => r.taskId))).size).toBe(55)
      expect(results[10]!.map((r) => r.trackingNumber)).toEqual(results[0]!.map((r) => r.trackingNumber))
      expect(answers[12]).toMatchObject({ code: 'validation_error', message: 'items must hold 1 to 5 items, got 6' })
      const [none] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tracking_tasks WHERE tracking_number LIKE 'CB-99-%'`)
      expect(none!.n).toBe(0)
      // Each answer names its own user's task for its own number.
      const named = results.slice(0, 12).flatMap((b, i) => b.map((r) => ({ id: r.taskId, user_id: calls[i]!.userId, tracking_number: r.trackingNumber })))
      const stored = await t.db.query<{ id: number; user_id: number; tracking_number: string }>(
        `SELECT id, user_id, tracking_number FROM tracking_tasks WHERE id = ANY($1::bigint[])`,
        [named.map((n) => n.id)],
      )
      const byId = new Map(stored.map((row) => [Number(row.id), { ...row, id: Number(row.id), user_id: Number(row.user_id) }]))
      expect(named.map((n) => byId.get(n.id))).toEqual(named)
    } finally {
      await t.services.settings.update({ batchMaxItems: 100 })
    }
  })
})

describe('concurrent single subscribes', () => {
  it('share statements, and each gets the answer its own statement would have given', async () => {
    const other = (await t.createUser()).userId
    const distinct = Array.from({ length: 60 }, (_, i) => ({ userId, body: item(`CO-${i}`) }))
    // The same number for another user is another task; three calls on one key take effect in order.
    const otherUser = { userId: other, body: item('CO-0') }
    const sameKey = ['a', 'b', 'c'].map((s) => ({ userId, body: { ...item('CO-SAME'), callbackUrl: `https://shop.example/${s}` } }))
    const calls = [...distinct, otherUser, ...sameKey]
    const subscribeAll = () => Promise.all(calls.map((c) => t.services.subscriptions.subscribe(c.userId, c.body)))

    let first: Awaited<ReturnType<typeof subscribeAll>> = []
    const statements = await countStatements(async () => (first = await subscribeAll()))
    expect(statements).toBeLessThan(calls.length / 3)
    expect(first.slice(0, 61).map((r) => r.result)).toEqual(Array(61).fill('created'))
    expect(new Set(first.map((r) => r.taskId)).size).toBe(62)
    expect(first.slice(61).map((r) => r.result)).toEqual(['created', 'updated', 'updated'])
    expect(first.slice(61).map((r) => r.trackingNumber)).toEqual(['CO-SAME', 'CO-SAME', 'CO-SAME'])
    const [stored] = await t.db.query<{ callback_url: string; user_id: number }>(
      `SELECT callback_url, user_id FROM tracking_tasks WHERE tracking_number = 'CO-SAME'`,
    )
    expect(stored).toEqual({ callback_url: 'https://shop.example/c', user_id: userId })

    const again = await subscribeAll()
    expect(again.map((r) => r.result)).toEqual(Array(calls.length).fill('updated'))
    expect(again.map((r) => r.taskId)).toEqual(first.map((r) => r.taskId))
  })
})

describe('concurrent queries', () => {
  it('share statements, and each gets the answer its own statement would have given', async () => {
    const other = (await t.createUser()).userId
    const mine = await t.services.subscriptions.subscribeBatch(userId, { items: Array.from({ length: 20 }, (_, i) => item(`Q-${i}`)) })
    const theirs = await t.services.subscriptions.subscribe(other, item('Q-0'))
    // A second task with a number already used, at another carrier: the newer one is the answer.
    const newer = await t.services.subscriptions.subscribe(userId, { ...item('Q-1'), carrierCode: 'UPARCEL' })
    const ids = mine.map((r) => r.taskId!)
    type Lookup = { userId: number; taskId: number } | { userId: number; trackingNumber: string }
    const lookups: Lookup[] = [
      ...ids.map((taskId) => ({ userId, taskId })),
      { userId, taskId: theirs.taskId }, // another user's task: absent
      { userId: other, taskId: theirs.taskId },
      { userId, taskId: 2 ** 52 }, // no such task
      { userId, taskId: ids[0]! }, // the same query twice in one group
      ...Array.from({ length: 20 }, (_, i) => ({ userId, trackingNumber: `Q-${i}` })),
      { userId: other, trackingNumber: 'Q-0' },
      { userId: other, trackingNumber: 'Q-1' }, // only this user's numbers count
      { userId, trackingNumber: 'NOPE' },
    ]
    const repository = new TaskRepository(t.db)
    const find = (l: Lookup) => ('taskId' in l ? repository.findById(l.userId, l.taskId) : repository.findNewestByTrackingNumber(l.userId, l.trackingNumber))

    let together: Awaited<ReturnType<typeof find>>[] = []
    const statements = await countStatements(async () => (together = await Promise.all(lookups.map(find))))
    expect(statements).toBeLessThan(lookups.length / 3)
    const oneByOne = []
    for (const l of lookups) oneByOne.push(await find(l))
    expect(together).toEqual(oneByOne)

    // And the answers are the right ones, not merely the same ones.
    expect(together.slice(0, 20).map((task) => task && parseDocument(task).taskId)).toEqual(ids)
    expect(together.slice(20, 24).map((task) => task && parseDocument(task).taskId)).toEqual([undefined, theirs.taskId, undefined, ids[0]])
    expect(together.slice(24, 44).map((task) => task && parseDocument(task).taskId)).toEqual([ids[0], newer.taskId, ...ids.slice(2)])
    expect(together.slice(44).map((task) => task && parseDocument(task).taskId)).toEqual([theirs.taskId, undefined, undefined])
  })
})

describe('owners', () => {
  it('a task never loses its user: API users cannot be deleted or truncated away', async () => {
    const owner = (await t.createUser()).userId
    await t.services.subscriptions.subscribe(owner, item('OWNED-1'))
    await expect(t.db.query('DELETE FROM api_users WHERE id = $1', [owner])).rejects.toThrow(/never deleted/)
    await expect(t.db.query('TRUNCATE api_users CASCADE')).rejects.toThrow(/never deleted/)
    const [row] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tracking_tasks t JOIN api_users u ON u.id = t.user_id WHERE t.user_id = $1', [
      owner,
    ])
    expect(row!.n).toBe(1)
  })

  it('no event, delivery or attempt outlives its parent: deletes take the children along, and truncation is refused', async () => {
    const { taskId } = await t.services.subscriptions.subscribe(userId, item('OWNED-2'))
    await t.db.query(`INSERT INTO tracking_events (task_id, event_key, event_time) VALUES ($1, 'k', now())`, [taskId])
    const [delivery] = await t.db.query<{ id: number }>(
      `INSERT INTO deliveries (task_id, user_id, webhook_id, payload) VALUES ($1, (SELECT user_id FROM tracking_tasks WHERE id = $1), 'msg_owned', '{}') RETURNING id`,
      [taskId],
    )
    await t.db.query(`INSERT INTO delivery_attempts (delivery_id, attempt_number, started_at, duration_ms) VALUES ($1, 1, now(), 1)`, [delivery!.id])
    await expect(t.db.query('TRUNCATE tracking_tasks CASCADE')).rejects.toThrow(/never truncated/)
    await expect(t.db.query('TRUNCATE deliveries CASCADE')).rejects.toThrow(/never truncated/)
    // Even a delete made by hand, outside the service.
    await t.db.query('DELETE FROM tracking_tasks WHERE id = $1', [taskId])
    const [left] = await t.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM tracking_events WHERE task_id = $1) + (SELECT count(*) FROM deliveries WHERE task_id = $1) + (SELECT count(*) FROM delivery_attempts WHERE delivery_id = $2) AS n`,
      [taskId, delivery!.id],
    )
    expect(Number(left!.n)).toBe(0)
  })
})

describe('batch statement plan', () => {
  it('finds existing tasks through the unique key per item, even before statistics exist', async () => {
    // A fast-growing table the planner has no statistics for: it once chose to read all of the
    // user's tasks for every batch.
    const owner = (await t.createUser()).userId
    await t.db.query(
      `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url) SELECT $1, 'FEDEX', 'NOSTATS' || g, 'https://a.example/' FROM generate_series(1, 30000) g`,
      [owner],
    )
    const numbers = Array.from({ length: 100 }, (_, i) => `NOSTATS${i}`)
    const rows = await t.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${INSERT_MISSING_SQL}`, [
      numbers.map(() => owner),
      numbers.map(() => 'FEDEX'),
      numbers,
      numbers.map(() => 'https://a.example/'),
      numbers.map(() => ''),
      numbers.map(() => 100),
      newPageTokens(numbers.length),
    ])
    const text = rows.map((r) => r['QUERY PLAN']).join('\n')
    expect(text).toMatch(/SubPlan/)
    expect(text).toMatch(/Index (Only )?Scan using tracking_tasks_\w+ on tracking_tasks t/)
    expect(text).not.toMatch(/(Seq|Bitmap Heap) Scan on tracking_tasks/)
  })
})

describe('query plans', () => {
  beforeAll(async () => {
    // Enough rows that the planner would rather scan than probe if an index were missing.
    await t.db.query(`INSERT INTO api_users (name, webhook_secret) SELECT 'u' || g, 'whsec_x' FROM generate_series(1, 200) g`)
    await t.db.query(
      `INSERT INTO tracking_tasks (user_id, carrier_code, tracking_number, callback_url)
       SELECT 2 + (g % 200), CASE WHEN g % 2 = 0 THEN 'FEDEX' ELSE 'UPARCEL' END, 'PLAN' || g, 'https://a.example/'
         FROM generate_series(1, 100000) g`,
    )
    await t.db.query(
      `INSERT INTO tracking_events (task_id, event_key, event_time)
       SELECT t.id, 'k' || e, now() - make_interval(hours => e)
         FROM tracking_tasks t, generate_series(1, 3) e`,
    )
    await t.db.query(
      `INSERT INTO deliveries (task_id, user_id, webhook_id, payload)
       SELECT id, user_id, 'msg_' || id, '{}' FROM tracking_tasks WHERE id % 5 = 0`,
    )
    await t.db.query(`INSERT INTO api_tokens (user_id, token_hash) SELECT 2 + (g % 200), sha256(g::text::bytea) FROM generate_series(1, 20000) g`)
    await t.db.query('ANALYZE')
  }, 120_000)

  async function plan(sql: string, params: unknown[]): Promise<string> {
    const rows = await t.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)
    return rows.map((r) => r['QUERY PLAN']).join('\n')
  }

  it('finds a task by id through the primary key and its latest webhook through its index, without reading events', async () => {
    const text = await plan(TASK_BY_ID_SQL, [50, 12345])
    expect(text).toMatch(/Index Scan using tracking_tasks_pkey on tracking_tasks/)
    expect(text).toMatch(/deliveries_task_idx/)
    // The events are kept ready on the task row (events_view).
    expect(text).not.toMatch(/tracking_events/)
    expect(text).not.toMatch(/Seq Scan/)
  })

  it('finds the newest task by tracking number through the unique key (user_id, tracking_number, carrier_code)', async () => {
    const text = await plan(TASK_BY_NUMBER_SQL, [50, 'PLAN12345'])
    expect(text).toMatch(/Index Scan using tracking_tasks_user_number_carrier_key on tracking_tasks/)
    expect(text).not.toMatch(/Seq Scan/)
    // What the index finds (one task per carrier) is sorted to keep the newest: one or two rows.
  })

  it('has one index for a task number, not two', async () => {
    const rows = await t.db.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE tablename = 'tracking_tasks' AND indexdef LIKE '%tracking_number%'`,
    )
    expect(rows.map((r) => r.indexdef)).toEqual([
      expect.stringMatching(
        /UNIQUE INDEX tracking_tasks_user_number_carrier_key ON (public\.)?tracking_tasks USING btree \(user_id, tracking_number, carrier_code\)/,
      ),
    ])
  })

  it('answers many queries in one statement through the same indexes', async () => {
    for (const text of [
      await plan(TASKS_BY_ID_MANY_SQL, [
        [50, 51],
        [12345, 12346],
      ]),
      await plan(TASKS_BY_NUMBER_MANY_SQL, [
        [50, 51],
        ['PLAN12345', 'PLAN12346'],
      ]),
    ]) {
      expect(text).toMatch(/Index Scan using (tracking_tasks_pkey|tracking_tasks_user_number_carrier_key) on tracking_tasks/)
      expect(text).toMatch(/deliveries_task_idx/)
      expect(text).not.toMatch(/Seq Scan|tracking_events/)
    }
  })

  it('looks tokens up by their hash through the unique index', async () => {
    const text = await plan('SELECT user_id FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL', [Buffer.alloc(32)])
    expect(text).toMatch(/api_tokens_token_hash_key/)
  })
})
