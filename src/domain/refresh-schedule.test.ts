import { describe, expect, it } from 'vitest'
import { refreshRetryDelayMs } from './refresh-schedule'

const policy = { baseMs: 30_000, maxMs: 3_600_000 }

describe('refreshRetryDelayMs', () => {
  it('doubles per consecutive failure up to the cap', () => {
    expect([0, 1, 2, 3, 7, 8, 30].map((n) => refreshRetryDelayMs(n, policy, 0, 0.5))).toEqual([
      30_000, 60_000, 120_000, 240_000, 3_600_000, 3_600_000, 3_600_000,
    ])
  })
  it('jitters by ±20 %', () => {
    expect(refreshRetryDelayMs(0, policy, 0, 0)).toBe(24_000)
    expect(refreshRetryDelayMs(0, policy, 0, 1)).toBe(36_000)
  })
  it('waits at least as long as the carrier asked', () => {
    expect(refreshRetryDelayMs(0, policy, 120_000, 0.5)).toBe(120_000)
  })
})
