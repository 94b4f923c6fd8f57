import { describe, expect, it } from 'vitest'
import { ExpiringMap } from './expiring-map'

describe('ExpiringMap', () => {
  it('keeps a value for its ttl, and no longer', () => {
    let now = 1_000
    const map = new ExpiringMap<boolean>(500, 10, () => now)
    map.set('a', false)
    expect(map.get('a')).toBe(false)
    now += 499
    expect(map.get('a')).toBe(false)
    now += 1
    expect(map.get('a')).toBeUndefined()
  })

  it('empties itself when full, and keeps nothing with a ttl of 0', () => {
    const map = new ExpiringMap<number>(1_000, 2)
    map.set('a', 1)
    map.set('b', 2)
    map.set('c', 3)
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([undefined, undefined, 3])
    map.delete('c')
    expect(map.get('c')).toBeUndefined()
    const none = new ExpiringMap<number>(0, 2)
    none.set('a', 1)
    expect(none.get('a')).toBeUndefined()
  })
})
