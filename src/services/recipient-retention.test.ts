import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { AuditRepository } from '../db/audit.repository'
import { RecipientRepository } from '../db/recipient.repository'
import { SettingsRepository } from '../db/settings.repository'
import { RetentionService } from './retention.service'

// A recipient is personal data: deleted recipientRetentionDays after its task ended (the task and
// its messages' log stay), kept while the task is active or ended more recently.
let t: TestApp
let shop: Awaited<ReturnType<TestApp['createUser']>>
beforeAll(async () => {
  t = await createTestApp()
  shop = await t.createUser('retained')
})
afterAll(() => t.close())

async function taskWithRecipient(number: string, endedDaysAgo: number | null): Promise<number> {
  const { taskId } = await t.services.subscriptions.subscribe(shop.userId, {
    carrierCode: 'FEDEX',
    trackingNumber: number,
    callbackUrl: 'https://shop.example/hook',
    recipient: { email: `${number.toLowerCase()}@example.com`, name: 'Ana' },
  })
  if (endedDaysAgo !== null)
    await t.db.query(`UPDATE tracking_tasks SET inactive_since = now() - make_interval(days => $2) WHERE id = $1`, [taskId, endedDaysAgo])
  return taskId
}

describe("a recipient's retention", () => {
  it('deletes the recipients of tasks ended over recipientRetentionDays ago, and no other', async () => {
    expect((await t.services.settings.get()).recipientRetentionDays).toBe(30)
    const old = await taskWithRecipient('RR1', 31)
    const recent = await taskWithRecipient('RR2', 29)
    const active = await taskWithRecipient('RR3', null)
    const retention = new RetentionService(t.db, new SettingsRepository(t.db), new AuditRepository(t.db), new RecipientRepository(t.db))
    await retention.runRound()
    const left = async (taskId: number) => (await t.services.notifications.recipient(shop.userId, taskId)) !== null
    expect([await left(old), await left(recent), await left(active)]).toEqual([false, true, true])
    // The task itself stays (retentionDays is 0: kept forever).
    expect((await t.as(shop.token, { method: 'GET', url: `/openapi/tracking-subscriptions/${old}` })).statusCode).toBe(200)

    await t.services.settings.update({ recipientRetentionDays: 1 })
    await retention.runRound()
    expect([await left(recent), await left(active)]).toEqual([false, true])
    await t.services.settings.update({ recipientRetentionDays: 30 })
  })
})
