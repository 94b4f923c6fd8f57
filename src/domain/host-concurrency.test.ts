import { describe, expect, it } from 'vitest'
import { answerKind, HostLimit } from './host-concurrency'

const ok = { kind: 'ok' as const, durationMs: 2 }
const overloaded = { kind: 'overloaded' as const, durationMs: 2 }

describe('a host limit', () => {
  it('grows by one per quick 2xx until the first trouble, never above its cap', () => {
    const limit = new HostLimit({ initial: 8, max: 20 })
    for (let i = 0; i < 10; i++) limit.record(ok, 0)
    expect(limit.limit).toBe(18)
    for (let i = 0; i < 10; i++) limit.record(ok, 0)
    expect(limit.limit).toBe(20)
  })

  it('halves on overload once per round of answers, then grows by one per round', () => {
    const limit = new HostLimit({ initial: 16, max: 64 })
    limit.record(overloaded, 0)
    expect(limit.limit).toBe(8)
    // The rest of the round that was in flight: counted once.
    for (let i = 0; i < 7; i++) limit.record(overloaded, 0)
    expect(limit.limit).toBe(8)
    limit.record(overloaded, 0)
    expect(limit.limit).toBe(4)
    for (let i = 0; i < 3; i++) limit.record(ok, 0)
    expect(limit.limit).toBe(4)
    limit.record(ok, 0)
    expect(limit.limit).toBe(5)
    for (let i = 0; i < 20; i++) limit.record({ ...overloaded }, 0)
    expect(limit.limit).toBeGreaterThanOrEqual(1)
  })

  it('takes a much slower answer than usual as overload, not a steadily slow host', () => {
    const steady = new HostLimit({ initial: 4, max: 8 })
    for (let i = 0; i < 10; i++) steady.record({ kind: 'ok', durationMs: 200 }, 0)
    expect(steady.limit).toBe(8)
    const rising = new HostLimit({ initial: 4, max: 64 })
    for (let i = 0; i < 10; i++) rising.record({ kind: 'ok', durationMs: 5 }, 0)
    expect(rising.limit).toBe(14)
    rising.record({ kind: 'ok', durationMs: 400 }, 0)
    expect(rising.limit).toBe(7)
  })

  it("is paused until a 429's Retry-After", () => {
    const limit = new HostLimit({ initial: 8, max: 8 })
    expect(limit.open(1000)).toBe(true)
    limit.record({ kind: 'overloaded', durationMs: 1, retryAfterMs: 2000 }, 1000)
    expect(limit.open(2999)).toBe(false)
    expect(limit.open(3000)).toBe(true)
  })

  it('reads a status as ok, overloaded or neither', () => {
    expect([200, 204, 0, 429, 500, 503, 404, 410, 302].map(answerKind)).toEqual([
      'ok',
      'ok',
      'overloaded',
      'overloaded',
      'overloaded',
      'overloaded',
      'other',
      'other',
      'other',
    ])
  })
})
