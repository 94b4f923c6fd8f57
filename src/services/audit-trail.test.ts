import { RecipientRepository } from '../db/recipient.repository'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import type { Actor } from '../domain/audit'
import { AuditRepository } from '../db/audit.repository'
import { SettingsRepository } from '../db/settings.repository'
import { AppError } from '../domain/errors'
import { RetentionService } from './retention.service'

// The audit trail's promise: a change and its entry commit together or not at all.
let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const admin: Actor = { kind: 'admin_token', address: '192.0.2.7' }
const entries = () =>
  t.db.query<{ action: string; outcome: string; target_id: string | null; address: string | null; detail: Record<string, unknown> }>(
    'SELECT * FROM audit_log ORDER BY id',
  )
const users = async (name: string) => (await t.services.users.search({ search: name }, 10)).length

describe('the audit trail', () => {
  it('writes the entry with the change: who, what, on what, from where', async () => {
    const created = await t.services.users.create('Audited shop', admin)
    const [entry] = await entries()
    expect(entry).toMatchObject({ action: 'api_user.create', outcome: 'ok', target_id: String(created.userId), address: '192.0.2.7' })
    expect(entry!.detail).toMatchObject({ name: 'Audited shop', tokenPrefix: created.token.slice(0, 12) })
    expect(JSON.stringify(entry)).not.toContain(created.token)
    expect(JSON.stringify(entry)).not.toContain(created.webhookSecret)
  })

  it('undoes the change when its entry cannot be written', async () => {
    // An actor the table refuses (its CHECK on actor_kind): the entry fails, so the user is not created.
    const broken = { kind: 'intruder', address: '192.0.2.8' } as unknown as Actor
    await expect(t.services.users.create('Never created', broken)).rejects.toThrow()
    expect(await users('Never created')).toBe(0)
  })

  it('records no success for a change that failed midway, and undoes what it had written', async () => {
    const before = (await entries()).length
    await expect(
      t.services.audit.record(admin, { action: 'settings.update', target: { kind: 'settings' } }, async (tx) => {
        await new SettingsRepository(t.db).update(tx, { batchMaxItems: 7 })
        throw new AppError('validation_error', 'a later step said no')
      }),
    ).rejects.toThrow('a later step said no')
    expect((await t.services.settings.get()).batchMaxItems).toBe(100)
    const added = (await entries()).slice(before)
    expect(added.map((e) => [e.action, e.outcome, e.detail.reason])).toEqual([['settings.update', 'refused', 'a later step said no']])
  })

  it('records a refusal of the service as refused, with its reason', async () => {
    await expect(t.services.settings.update({ batchMaxItems: 0 }, admin)).rejects.toThrow()
    const last = (await entries()).at(-1)!
    expect(last).toMatchObject({ action: 'settings.update', outcome: 'refused' })
    expect(last.detail.reason).toContain('batchMaxItems must be an integer from 1 to 1000')
  })

  it('is purged after auditRetentionDays by the retention round', async () => {
    await t.db.query("UPDATE audit_log SET at = now() - interval '400 days' WHERE action = 'api_user.create'")
    await new RetentionService(t.db, new SettingsRepository(t.db), new AuditRepository(t.db), new RecipientRepository(t.db)).runRound()
    expect((await entries()).map((e) => e.action)).not.toContain('api_user.create')
    expect((await entries()).length).toBeGreaterThan(0)
  })
})
