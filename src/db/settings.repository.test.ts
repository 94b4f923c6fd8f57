import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countStatements } from '../../test/support/count-statements'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { SettingsRepository } from './settings.repository'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('SettingsRepository', () => {
  it('answers concurrent reads with shared statements: the first alone, those that arrive meanwhile together', async () => {
    const repository = new SettingsRepository(t.db)
    let answers: unknown[] = []
    const statements = await countStatements(t.db, async () => (answers = await Promise.all(Array.from({ length: 20 }, () => repository.get()))))
    expect(answers).toEqual(
      Array(20).fill({
        batchMaxItems: 100,
        retentionDays: 0,
        predictionSharing: 'all',
        consoleSessionHours: 8,
        auditRetentionDays: 365,
        recipientRetentionDays: 30,
        carrierAutoCorrect: 'off',
        carrierAutoCorrectHours: 48,
      }),
    )
    expect(statements).toBe(2)
  })

  it('never answers a read with a value older than the read: a change made before it is seen', async () => {
    const repository = new SettingsRepository(t.db)
    const earlier = repository.get()
    await t.db.transaction((tx) => repository.update(tx, { batchMaxItems: 77 }))
    expect(await repository.get()).toEqual({
      batchMaxItems: 77,
      retentionDays: 0,
      predictionSharing: 'all',
      consoleSessionHours: 8,
      auditRetentionDays: 365,
      recipientRetentionDays: 30,
      carrierAutoCorrect: 'off',
      carrierAutoCorrectHours: 48,
    })
    expect([100, 77]).toContain((await earlier).batchMaxItems)
    await t.db.transaction((tx) => repository.update(tx, { batchMaxItems: 100 }))
  })
})
