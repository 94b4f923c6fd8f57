import { describe, expect, it } from 'vitest'
import { newPageTokens } from './page-token'
import { createTestDatabase } from '../../test/support/test-database'

describe('page tokens drawn in the service', () => {
  it('are 32 base64url characters, the clock first (microseconds), the rest random', () => {
    const before = Date.now()
    const tokens = newPageTokens(1_000)
    const after = Date.now()
    expect(new Set(tokens).size).toBe(1_000)
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/)
    const micros = Buffer.from(tokens[0]!, 'base64url').readUIntBE(0, 6)
    expect(micros).toBeGreaterThanOrEqual((before * 1000) % 2 ** 48)
    expect(micros).toBeLessThanOrEqual(((after + 1) * 1000) % 2 ** 48)
    // 18 random bytes: no two tokens share their random part.
    expect(new Set(tokens.map((t) => t.slice(8))).size).toBe(1_000)
  })

  it('read as the column default writes them (new_page_token(): same length, alphabet and clock prefix)', async () => {
    const { db, close } = await createTestDatabase()
    try {
      const [row] = await db.query<{ token: string; micros: string }>(
        `SELECT new_page_token() AS token, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint % (2^48)::bigint AS micros`,
      )
      const [mine] = newPageTokens(1)
      expect(row!.token).toMatch(/^[A-Za-z0-9_-]{32}$/)
      const sqlMicros = Buffer.from(row!.token, 'base64url').readUIntBE(0, 6)
      const nodeMicros = Buffer.from(mine!, 'base64url').readUIntBE(0, 6)
      // Both clocks in microseconds, read within a second of each other.
      expect(Math.abs(nodeMicros - sqlMicros)).toBeLessThan(1_000_000)
      expect(Math.abs(Number(row!.micros) - sqlMicros)).toBeLessThan(1_000_000)
    } finally {
      await close()
    }
  })
})
