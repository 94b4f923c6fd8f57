import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../../test/support/test-app'
import { royalMailPush, royalMailTask } from '../../test/support/seventeentrack-push'
import { SEVENTEENTRACK } from '../carriers/seventeentrack/seventeentrack.route'
import { InboundRepository } from '../db/inbound.repository'
import { RefreshRepository } from '../db/refresh.repository'
import { InboundApplyService } from './inbound-apply.service'
import { RefreshApply } from './refresh-apply'

// The pushes' claim is the worker's transaction: what a worker that dies midway leaves, and what two
// workers applying side by side share.
let t: TestApp
let userId: number

beforeAll(async () => {
  t = await createTestApp()
  userId = (await t.createUser()).userId
})
afterAll(() => t.close())

/** An applier whose apply can be held open or made to fail. */
function worker(apply?: (items: Parameters<RefreshApply['apply']>[0], real: RefreshApply) => ReturnType<RefreshApply['apply']>) {
  const real = new RefreshApply(t.db, 30 * 86_400_000)
  const applier = apply ? ({ apply: (items) => apply(items, real) } as RefreshApply) : real
  return new InboundApplyService(t.db, new InboundRepository(t.db), new RefreshRepository(t.db), applier, {
    readers: new Map([[SEVENTEENTRACK.label, SEVENTEENTRACK]]),
    reconcileMs: new Map([[SEVENTEENTRACK.code, 21_600_000]]),
  })
}

let seq = 0
async function pushedTask(): Promise<{ taskId: number; pushId: number }> {
  const number = `RMAP${Date.now() % 1_000_000}${++seq}GB`
  const taskId = await royalMailTask(t, userId, number)
  const body = royalMailPush(number, 'InTransit_PickedUp', [{ at: '2026-11-20T09:00:00Z', description: 'Item collected', stage: 'PickedUp' }])
  await new InboundRepository(t.db).store('17track', Buffer.from(body))
  const [row] = await t.db.query<{ id: number }>(`SELECT id FROM inbound_pushes WHERE digest = encode(sha256(convert_to($1, 'UTF8')), 'hex')`, [body])
  return { taskId, pushId: row!.id }
}
const pushRow = async (id: number) =>
  (
    await t.db.query<{ applied: boolean; outcome: string | null; bytes: number }>(
      'SELECT applied_at IS NOT NULL AS applied, outcome, length(body) AS bytes FROM inbound_pushes WHERE id = $1',
      [id],
    )
  )[0]!
const milestone = async (taskId: number) =>
  (await t.db.query<{ milestone: string }>('SELECT milestone FROM tracking_tasks WHERE id = $1', [taskId]))[0]!.milestone

describe('InboundApplyService', () => {
  it('leaves the pushes of a round that fails midway waiting, whole, and the next round applies them', async () => {
    const { taskId, pushId } = await pushedTask()
    await expect(
      worker(() => {
        throw new Error('the worker dies')
      }).runRound(),
    ).rejects.toThrow('the worker dies')
    expect(await pushRow(pushId)).toMatchObject({ applied: false, outcome: null })
    expect((await pushRow(pushId)).bytes).toBeGreaterThan(100)
    // The task's claim of the failed round is released; a healthy worker takes the push.
    while (await worker().runRound());
    expect(await pushRow(pushId)).toEqual({ applied: true, outcome: 'applied', bytes: 0 })
    expect(await milestone(taskId)).toBe('in_transit')
  })

  it('never gives a push to two workers: one applying holds it, the other finds nothing to do', async () => {
    const { taskId, pushId } = await pushedTask()
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let entered!: () => void
    const inside = new Promise<void>((resolve) => (entered = resolve))
    const slow = worker(async (items, real) => {
      entered()
      await held
      return real.apply(items)
    }).runRound()
    await inside
    let applied = 0
    const other = worker(async (items, real) => {
      applied += items.length
      return real.apply(items)
    })
    await other.runRound()
    expect(applied).toBe(0)
    release()
    await slow
    expect(await pushRow(pushId)).toMatchObject({ applied: true, outcome: 'applied' })
    expect(await milestone(taskId)).toBe('in_transit')
  })
})
