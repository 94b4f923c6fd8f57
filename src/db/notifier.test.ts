import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import { waitFor } from '../../test/support/wait-for'
import { Notifier } from './notifier'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database.close())

describe('Notifier', () => {
  it('folds a burst of notify() calls into one NOTIFY', async () => {
    let received = 0
    const unlisten = await database.db.listen('notifier_test', () => received++)
    const notifier = new Notifier(database.db, 'notifier_test', 100)
    for (let i = 0; i < 50; i++) notifier.notify()
    await waitFor(() => received >= 1, { what: 'the first NOTIFY' })
    // One more, after the interval: had the burst sent fifty, they would all be in by now.
    notifier.notify()
    await waitFor(() => received >= 2, { what: 'the second NOTIFY' })
    expect(received).toBe(2)
    await unlisten()
  })
})
