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
})
