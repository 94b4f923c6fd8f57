import { describe, expect, it } from 'vitest'
import { CarrierBudget } from './carrier-budget'

function fakeTime() {
  let now = 0
  return { now: () => now, sleep: async (ms: number) => void (now += ms) }
}

describe('CarrierBudget', () => {
  it('lets a burst of one second through, then paces at the rate', async () => {
    const time = fakeTime()
    const budget = new CarrierBudget(10, time.now, time.sleep)
    for (let i = 0; i < 10; i++) await budget.acquire()
    expect(time.now()).toBe(0)
    for (let i = 0; i < 20; i++) await budget.acquire()
    expect(time.now()).toBeGreaterThanOrEqual(1900)
    expect(time.now()).toBeLessThanOrEqual(2100)
  })

  it('waits out a pause from Retry-After', async () => {
    const time = fakeTime()
    const budget = new CarrierBudget(100, time.now, time.sleep)
    budget.pause(5000)
    expect(budget.paused).toBe(true)
    await budget.acquire()
    expect(time.now()).toBe(5000)
    expect(budget.paused).toBe(false)
  })

  it('lets a budget of 60 an hour send one request at once, then one a minute', async () => {
    const time = fakeTime()
    const budget = new CarrierBudget(60 / 3600, time.now, time.sleep)
    expect(budget.requestsWithin(10_000)).toBe(1)
    await budget.acquire()
    expect(time.now()).toBe(0)
    expect(budget.requestsWithin(10_000)).toBe(0)
    expect(budget.msUntilNext()).toBe(60_000)
    await budget.acquire()
    expect(time.now()).toBe(60_000)
    await budget.acquire()
    expect(time.now()).toBe(120_000)
  })

  it('counts no request through while paused', () => {
    const time = fakeTime()
    const budget = new CarrierBudget(10, time.now, time.sleep)
    budget.pause(3000)
    expect(budget.requestsWithin(1000)).toBe(0)
    expect(budget.msUntilNext()).toBe(3000)
  })
})
