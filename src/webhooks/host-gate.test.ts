import { describe, expect, it } from 'vitest'
import { HostGate } from './host-gate'

// The per-host gate alone, on a clock the test moves: no database, no HTTP.

function gate(options: { initial?: number; max?: number; kept?: number } = {}) {
  let now = 1_000_000
  const g = new HostGate({ initial: options.initial ?? 2, max: options.max ?? 8, kept: options.kept ?? 100 })
  return { g, now: () => now, advance: (ms: number) => (now += ms) }
}

const ok = { kind: 'ok' as const, durationMs: 20 }
const settle = () => new Promise((r) => setImmediate(r))

describe('the per-host gate', () => {
  it('lets in as many attempts as the host has room for, and the next when one leaves', async () => {
    const { g, now } = gate({ initial: 2 })
    expect(await g.enter('a.example', now() + 10_000, now)).toBe(true)
    expect(await g.enter('a.example', now() + 10_000, now)).toBe(true)
    let third: true | Date | undefined
    void g.enter('a.example', now() + 10_000, now).then((r) => (third = r))
    await settle()
    expect(third).toBeUndefined()
    // Another host is not held up by a full one.
    expect(await g.enter('b.example', now() + 10_000, now)).toBe(true)
    g.leave('a.example')
    await settle()
    expect(third).toBe(true)
    expect(g.hosts(now()).map((h) => [h.host, h.sending])).toEqual([
      ['a.example', 2],
      ['b.example', 1],
    ])
  })

  it('answers a wait that outlasts its deadline with a time to try again, instead of letting it in', async () => {
    const { g, now, advance } = gate({ initial: 1 })
    await g.enter('a.example', now() + 10_000, now)
    const waiting = g.enter('a.example', now() + 50, now)
    advance(60)
    expect(await waiting).toEqual(new Date(now() + 1000))
  })

  it('sends nothing to a host paused by a Retry-After, and gives its room to claims as none', async () => {
    const { g, now, advance } = gate({ initial: 4 })
    g.record('a.example', { kind: 'overloaded', durationMs: 5, retryAfterMs: 30_000 }, now())
    expect(await g.enter('a.example', now() + 10_000, now)).toEqual(new Date(now() + 30_000))
    expect(g.room(now()).get('a.example')).toBe(0)
    expect(g.hosts(now())[0]!.pausedUntil).toEqual(new Date(now() + 30_000))
    advance(30_000)
    expect(await g.enter('a.example', now() + 10_000, now)).toBe(true)
  })

  it('learns each host its limit (slow start, halving on overload) and leaves claims the room that is left', () => {
    const { g, now } = gate({ initial: 2, max: 8 })
    for (let i = 0; i < 10; i++) g.record('fast.example', ok, now())
    expect(g.record('fast.example', ok, now())).toBe(8)
    expect(g.record('fast.example', { kind: 'overloaded', durationMs: 15_000 }, now())).toBe(4)
    g.claimed('fast.example')
    g.claimed('fast.example')
    g.claimed('new.example')
    // A host it has no limit for yet has the starting limit.
    expect(Object.fromEntries(g.room(now()))).toEqual({ 'fast.example': 2, 'new.example': 1 })
    g.unclaimed('fast.example')
    expect(g.room(now()).get('fast.example')).toBe(3)
  })

  it('forgets idle hosts past the number it keeps, never one with claims or a pause', () => {
    const { g, now } = gate({ kept: 2 })
    for (const host of ['a', 'b', 'c', 'd']) g.record(host, ok, now())
    g.claimed('b')
    g.record('c', { kind: 'overloaded', durationMs: 5, retryAfterMs: 60_000 }, now())
    expect(g.forgetIdle(now()).sort()).toEqual(['a', 'd'])
    expect(
      g
        .hosts(now())
        .map((h) => h.host)
        .sort(),
    ).toEqual(['b', 'c'])
  })
})
