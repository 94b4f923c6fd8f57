import { describe, expect, it } from 'vitest'
import { afterAttempt, outcomeOfStatus, parseRetrySchedule } from './webhook-schedule'

const now = new Date('2026-11-22T00:00:00Z')
const scheduleMs = parseRetrySchedule(undefined)
const ctx = { scheduleMs, now, random: 0.5 }
const at = (verdict: ReturnType<typeof afterAttempt>) => (verdict.status === 'retry_wait' ? verdict.nextAttemptAt.getTime() - now.getTime() : verdict.status)

describe('afterAttempt', () => {
  it('is success on any 2xx', () => {
    expect(afterAttempt({ attemptInCycle: 8, outcome: outcomeOfStatus(204), retryAfterMs: undefined }, ctx)).toEqual({ status: 'success' })
  })

  it('follows the default schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then failed (8 attempts)', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => at(afterAttempt({ attemptInCycle: n, outcome: outcomeOfStatus(500), retryAfterMs: undefined }, ctx)))
    expect(waits).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, 'failed'])
  })

  it('jitters by ±10 %', () => {
    expect(at(afterAttempt({ attemptInCycle: 2, outcome: outcomeOfStatus(0), retryAfterMs: undefined }, { ...ctx, random: 0 }))).toBe(270_000)
    expect(at(afterAttempt({ attemptInCycle: 2, outcome: outcomeOfStatus(0), retryAfterMs: undefined }, { ...ctx, random: 1 }))).toBe(330_000)
  })

  it('stops at once on 410 Gone', () => {
    expect(afterAttempt({ attemptInCycle: 1, outcome: outcomeOfStatus(410), retryAfterMs: undefined }, ctx)).toEqual({ status: 'failed' })
  })

  it('honours Retry-After within the schedule’s longest wait', () => {
    expect(at(afterAttempt({ attemptInCycle: 1, outcome: outcomeOfStatus(429), retryAfterMs: 60_000 }, ctx))).toBe(60_000)
    expect(at(afterAttempt({ attemptInCycle: 1, outcome: outcomeOfStatus(503), retryAfterMs: 1_000 }, ctx))).toBe(5_000)
    expect(at(afterAttempt({ attemptInCycle: 1, outcome: outcomeOfStatus(429), retryAfterMs: 7 * 86_400_000 }, ctx))).toBe(36_000_000)
  })
})

describe('parseRetrySchedule', () => {
  it('reads comma-separated seconds', () => {
    expect(parseRetrySchedule('1, 2,0.5')).toEqual([1000, 2000, 500])
  })
  it('refuses anything else', () => {
    expect(() => parseRetrySchedule('1,x')).toThrow(/WEBHOOK_RETRY_SCHEDULE/)
  })
})
