import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database'
import { intArray, textArray } from './array-literal'

let t: TestDatabase
beforeAll(async () => {
  t = await createTestDatabase({ poolSize: 1 })
})
afterAll(() => t.close())

/** What the database reads the literal as. */
async function roundTrip(literal: string, type: 'text[]' | 'bigint[]'): Promise<unknown[]> {
  const [row] = await t.db.query<{ value: unknown[] }>(`SELECT $1::${type} AS value`, [literal])
  return row!.value
}

describe('array literals', () => {
  it('reads back every text as itself: quotes, backslashes, NULL, empty, commas, braces, spaces, non-ASCII', async () => {
    const texts = ['plain', '', 'NULL', 'null', 'a,b', '{x}', ' padded ', 'say "hi"', 'back\\slash', '\\"', 'ünïcødé 📦', 'https://shop.example/hook?a=1&b=2']
    expect(await roundTrip(textArray(texts), 'text[]')).toEqual(texts)
  })

  it('takes the fast path when nothing needs escaping, and an empty array', async () => {
    expect(textArray(['UPARCEL', 'FEDEX'])).toBe('{"UPARCEL","FEDEX"}')
    expect(await roundTrip(textArray([]), 'text[]')).toEqual([])
  })

  it('writes integers as they are', async () => {
    // pg hands a bigint[] back as texts.
    expect(await roundTrip(intArray([1, 42, 9_007_199_254_740_991]), 'bigint[]')).toEqual(['1', '42', '9007199254740991'])
    expect(await roundTrip(intArray([]), 'bigint[]')).toEqual([])
  })
})
