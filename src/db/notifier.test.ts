import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, onPostgres, type TestDatabase } from '../../test/support/test-database'
import { Notifier } from './notifier'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database.close())

describe('Notifier', () => {
  it('folds a burst of notify() calls into one NOTIFY (PostgreSQL), or does nothing (embedded)', async () => {
    let received = 0
    const unlisten = await database.db.listen('notifier_test', () => received++)
    const notifier = new Notifier(database.db, 'notifier_test', 100)
    for (let i = 0; i < 50; i++) notifier.notify()
    await new Promise((r) => setTimeout(r, 400))
    expect(received).toBe(onPostgres ? 1 : 0)
    notifier.notify()
    await new Promise((r) => setTimeout(r, 300))
    expect(received).toBe(onPostgres ? 2 : 0)
    await unlisten()
  })
})
