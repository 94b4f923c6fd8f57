import { describe, expect, it } from 'vitest'
import { Coalescer } from './coalescer'

/** A statement that takes as long as the test says, and records every group it was given. */
function harness(
  options: {
    maxInFlight?: number
    maxGroup?: number
    failGroups?: unknown
    keyless?: boolean
    sized?: boolean
    gather?: { ms: number; enough: number }
    deadlineMs?: number
  } = {},
) {
  const groups: string[][] = []
  const singles: string[] = []
  const releases: (() => void)[] = []
  const coalescer = new Coalescer<string, string>({
    maxInFlight: options.maxInFlight ?? 1,
    maxGroup: options.maxGroup ?? 100,
    // 'a:1' touches key a; 'a+b:1' touches a and b. With `sized`, 'a:3' holds 3 rows.
    ...(options.keyless ? {} : { keys: (item: string) => item.split(':')[0]!.split('+') }),
    ...(options.sized ? { size: (item: string) => Number(item.split(':')[1]) } : {}),
    ...(options.gather ? { gather: options.gather } : {}),
    ...(options.deadlineMs ? { deadlineMs: options.deadlineMs } : {}),
    run: async (items) => {
      groups.push(items)
      await new Promise<void>((r) => releases.push(r))
      if (options.failGroups) throw options.failGroups
      return items.map((i) => `ok ${i}`)
    },
    runOne: async (item) => {
      singles.push(item)
      await new Promise<void>((r) => releases.push(r))
      if (item.endsWith('bad')) throw new Error(`bad ${item}`)
      return `ok ${item}`
    },
    isShared: (error) => error === 'down',
  })
  const releaseAll = async () => {
    for (let i = 0; i < 50; i++) {
      releases.splice(0).forEach((r) => r())
      await new Promise((r) => setImmediate(r))
    }
  }
  return { coalescer, groups, singles, releaseAll }
}

describe('Coalescer', () => {
  it('groups keyless calls (reads) even when they are equal', async () => {
    const h = harness({ keyless: true })
    const calls = ['a:1', 'a:1', 'a:1', 'b:1'].map((i) => h.coalescer.submit(i))
    await h.releaseAll()
    expect(await Promise.all(calls)).toEqual(['ok a:1', 'ok a:1', 'ok a:1', 'ok b:1'])
    expect(h.singles).toEqual(['a:1'])
    expect(h.groups).toEqual([['a:1', 'a:1', 'b:1']])
  })

  it('sends a lone call at once, alone, and groups the calls that arrive while it runs', async () => {
    const h = harness()
    const first = h.coalescer.submit('a:1')
    const rest = ['b:1', 'c:1', 'd:1'].map((i) => h.coalescer.submit(i))
    await h.releaseAll()
    expect(await first).toBe('ok a:1')
    expect(await Promise.all(rest)).toEqual(['ok b:1', 'ok c:1', 'ok d:1'])
    expect(h.singles).toEqual(['a:1'])
    expect(h.groups).toEqual([['b:1', 'c:1', 'd:1']])
  })

  it('sends the next group before the callers of the finished one go on', async () => {
    const h = harness()
    let sentWhenFirstAnswered: string[][] = []
    const first = h.coalescer.submit('a:1').then(() => (sentWhenFirstAnswered = h.groups.map((g) => [...g])))
    const rest = ['b:1', 'c:1'].map((i) => h.coalescer.submit(i))
    await h.releaseAll()
    await Promise.all([first, ...rest])
    expect(sentWhenFirstAnswered).toEqual([['b:1', 'c:1']])
  })

  it('never puts one key twice in a group or in flight: later calls on a key run after, in order', async () => {
    const h = harness({ maxInFlight: 2 })
    const calls = ['a:1', 'a:2', 'b:1', 'a:3', 'c:1'].map((i) => h.coalescer.submit(i))
    await h.releaseAll()
    expect(await Promise.all(calls)).toEqual(['ok a:1', 'ok a:2', 'ok b:1', 'ok a:3', 'ok c:1'])
    // a:1 and b:1 fill the two slots; a:2 waits for a:1, then leaves with c:1; a:3 waits for a:2.
    expect(h.singles).toEqual(['a:1', 'b:1', 'a:3'])
    expect(h.groups).toEqual([['a:2', 'c:1']])
  })

  it('caps a group at maxGroup calls', async () => {
    const h = harness({ maxGroup: 2 })
    const calls = ['a:1', 'b:1', 'c:1', 'd:1', 'e:1'].map((i) => h.coalescer.submit(i))
    await h.releaseAll()
    await Promise.all(calls)
    expect(h.groups).toEqual([
      ['b:1', 'c:1'],
      ['d:1', 'e:1'],
    ])
  })

  it('keeps a call with several keys apart from every call sharing one, and later calls behind it', async () => {
    const h = harness()
    const calls = ['a:1', 'a+b:1', 'c+d:1', 'b:1', 'e:1', 'd+e:1'].map((i) => h.coalescer.submit(i))
    await h.releaseAll()
    await Promise.all(calls)
    // a+b waits for a:1; b:1 stays behind a+b (same key b), d+e behind c+d; then they follow.
    expect(h.singles).toEqual(['a:1'])
    expect(h.groups).toEqual([
      ['a+b:1', 'c+d:1', 'e:1'],
      ['b:1', 'd+e:1'],
    ])
  })

  it('caps a group at maxGroup rows when calls say their size; a larger call leaves alone', async () => {
    const h = harness({ sized: true, maxGroup: 5 })
    const calls = ['a:1', 'b:3', 'c:3', 'd:2', 'e:9', 'f:1'].map((i) => h.coalescer.submit(i))
    await h.releaseAll()
    await Promise.all(calls)
    // b and c do not fit together; d (2 rows) fills b's group, and f fills c's.
    expect(h.groups).toEqual([
      ['b:3', 'd:2'],
      ['c:3', 'f:1'],
    ])
    expect(h.singles).toEqual(['a:1', 'e:9'])
  })

  it('with gather, a call that finds a group running waits for others to join it before taking the free slot', async () => {
    const h = harness({ maxInFlight: 2, gather: { ms: 30, enough: 3 } })
    const first = h.coalescer.submit('a:1')
    // The coalescer was idle: the lone call left at once.
    expect(h.singles).toEqual(['a:1'])
    const second = h.coalescer.submit('b:1')
    await new Promise((r) => setTimeout(r, 5))
    expect(h.groups).toEqual([])
    const third = h.coalescer.submit('c:1')
    await new Promise((r) => setTimeout(r, 60))
    // The first call still runs; the other two took the free slot together once the wait was over.
    expect(h.groups).toEqual([['b:1', 'c:1']])
    await h.releaseAll()
    expect(await Promise.all([first, second, third])).toEqual(['ok a:1', 'ok b:1', 'ok c:1'])
  })

  it('with gather, the queue leaves at once when enough rows wait, or when no group runs any more', async () => {
    const h = harness({ maxInFlight: 2, sized: true, gather: { ms: 60_000, enough: 4 } })
    const calls = ['a:1', 'b:2', 'c:2'].map((i) => h.coalescer.submit(i))
    // b waited behind the running a; c brought the queue to 4 rows, so both left without the wait.
    expect(h.singles).toEqual(['a:1'])
    expect(h.groups).toEqual([['b:2', 'c:2']])
    const late = h.coalescer.submit('d:1')
    expect(h.singles).toEqual(['a:1'])
    await h.releaseAll()
    // Once nothing ran, d left: the minute it would have waited never passed.
    expect(await Promise.all([...calls, late])).toEqual(['ok a:1', 'ok b:2', 'ok c:2', 'ok d:1'])
    expect(h.singles).toEqual(['a:1', 'd:1'])
  })

  it('when a group fails, runs each call alone so that only the failing one sees an error', async () => {
    const h = harness({ failGroups: new Error('deadlock detected') })
    const first = h.coalescer.submit('a:1')
    const rest = ['b:1', 'c:bad', 'd:1'].map((i) => h.coalescer.submit(i).catch((e: Error) => e.message))
    await h.releaseAll()
    await first
    expect(await Promise.all(rest)).toEqual(['ok b:1', 'bad c:bad', 'ok d:1'])
  })

  it('fails the whole group at once on a shared error (the database is down)', async () => {
    const h = harness({ failGroups: 'down' })
    const first = h.coalescer.submit('a:1')
    const rest = ['b:1', 'c:1'].map((i) => h.coalescer.submit(i).catch((e: unknown) => e))
    await h.releaseAll()
    await first
    expect(await Promise.all(rest)).toEqual(['down', 'down'])
    expect(h.singles).toEqual(['a:1'])
  })

  it('never holds a call past its deadline: a running one fails, a queued one fails and leaves the queue', async () => {
    const h = harness({ deadlineMs: 50 })
    // a's statement hangs; b queues behind it (one in flight).
    const running = h.coalescer.submit('a:1').catch((e: Error) => e.message)
    const queued = h.coalescer.submit('b:1').catch((e: Error) => e.message)
    const started = Date.now()
    expect(await running).toBe('the database did not answer the request within 50 ms; retry shortly')
    expect(await queued).toBe('the database did not answer the request within 50 ms; retry shortly')
    expect(Date.now() - started).toBeLessThan(1_000)
    // a's statement ends at last: b was never sent, and a later call is answered as usual.
    const later = h.coalescer.submit('c:1')
    await h.releaseAll()
    expect(await later).toBe('ok c:1')
    expect([...h.singles, ...h.groups.flat()]).toEqual(['a:1', 'c:1'])
  })
})
