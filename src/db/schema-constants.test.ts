import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import { MILESTONE_NAMES } from '../domain/milestones'
import { CHANNELS, TARGET_KINDS } from '../domain/outbox'
import { SETTING_SPECS } from '../domain/settings'
import { STANDARD_STATUSES, WEBHOOK_STATUSES } from '../domain/statuses'

// The schema's CHECK constraints repeat closed sets of the domain's (a database cannot import a
// TypeScript constant): a value added to one and not the other fails here.

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database.close())

/** The definitions of `table`'s CHECK constraints that mention `column`. */
async function checks(table: string, column: string): Promise<string[]> {
  const rows = await database.db.query<{ def: string }>(
    `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c WHERE c.conrelid = $1::regclass AND c.contype = 'c'`,
    [table],
  )
  return rows.map((r) => r.def).filter((def) => new RegExp(`\\b${column}\\b`).test(def))
}

const quoted = (def: string) => [...def.matchAll(/'([^']+)'::text/g)].map((m) => m[1])

describe('the schema agrees with the domain', () => {
  it('on the standard statuses, the milestones and the webhook statuses', async () => {
    const [milestones] = await checks('tracking_tasks', 'milestone')
    expect(quoted(milestones!).sort()).toEqual([...MILESTONE_NAMES].sort())
    const [tasks] = await checks('tracking_tasks', 'standard_status')
    expect(quoted(tasks!).sort()).toEqual([...STANDARD_STATUSES].sort())
    const [deliveries] = await checks('deliveries', 'status')
    expect(quoted(deliveries!).sort()).toEqual([...WEBHOOK_STATUSES].sort())
  })

  it("on the outbox's channels and target kinds", async () => {
    // Each column's list of values (the target's other check pairs it with endpoint_id).
    const listed = async (column: string) => (await checks('deliveries', column)).filter((def) => !def.includes('endpoint_id'))
    const [channels] = await listed('channel')
    expect(quoted(channels!).sort()).toEqual([...CHANNELS].sort())
    const [targets] = await listed('target')
    expect(quoted(targets!).sort()).toEqual([...TARGET_KINDS].sort())
  })

  it("on the settings' bounds and defaults", async () => {
    for (const [name, setting] of SETTING_SPECS) {
      const column = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
      const [def] = await checks('settings', column)
      if (setting.kind === 'integer') {
        expect(def).toContain(`>= ${setting.min}`)
        expect(def).toContain(`<= ${setting.max}`)
      } else expect(quoted(def!).sort()).toEqual([...setting.values].sort())
      const [row] = await database.db.query<{ value: string }>(
        `SELECT column_default AS value FROM information_schema.columns WHERE table_name = 'settings' AND column_name = $1`,
        [column],
      )
      expect(row!.value.replace(/^'(.*)'::text$/, '$1')).toBe(String(setting.default))
    }
  })
})
