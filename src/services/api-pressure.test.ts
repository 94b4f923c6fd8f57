import { describe, expect, it } from 'vitest'
import { ApiPressure } from './api-pressure'

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('ApiPressure', () => {
  it('is busy from the mark on, and still for a moment after the count falls below it', async () => {
    const pressure = new ApiPressure(3)
    pressure.began()
    pressure.began()
    expect(pressure.busy()).toBe(false)
    pressure.began()
    expect(pressure.busy()).toBe(true)
    pressure.ended()
    // Answers come in groups and the next requests follow at once: below the mark must last.
    expect(pressure.busy()).toBe(true)
    pressure.began()
    pressure.ended()
    await later(120)
    expect(pressure.busy()).toBe(false)
  })

  it('lets a yield go on once the API is calm, and says so', async () => {
    const pressure = new ApiPressure(2)
    pressure.began()
    pressure.began()
    let outcome: boolean | undefined
    const yielded = pressure.yieldTo(10_000).then((busy) => (outcome = busy))
    await later(100)
    expect(outcome).toBeUndefined()
    pressure.ended()
    expect(await yielded).toBe(false)
  })

  it('gives up waiting after the time it was given, saying the API is still busy', async () => {
    const pressure = new ApiPressure(1)
    pressure.began()
    expect(await pressure.yieldTo(50)).toBe(true)
    // Nobody waits any more: a later calm has no one to wake.
    pressure.ended()
    await later(120)
    expect(await pressure.yieldTo(50)).toBe(false)
  })

  it('is never busy with a mark of 0', async () => {
    const pressure = new ApiPressure(0)
    for (let i = 0; i < 100; i++) pressure.began()
    expect(pressure.busy()).toBe(false)
    expect(await pressure.yieldTo(10_000)).toBe(false)
  })
})
