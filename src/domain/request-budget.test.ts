import { describe, expect, it } from 'vitest'
import { effectiveIntervalMs, parseRequestBudget, requestsPerSecond } from './request-budget'

describe('a request budget', () => {
  it.each([
    ['50', { requests: 50, per: 'second' }],
    ['60/hour', { requests: 60, per: 'hour' }],
    [' 250 / days ', { requests: 250, per: 'day' }],
    ['10/MINUTE', { requests: 10, per: 'minute' }],
  ])('reads %j', (text, budget) => {
    expect(parseRequestBudget(text)).toEqual(budget)
  })

  it.each(['', '0', '-1', '1.5', '60/week', 'sixty/hour', '60/hour/2'])('refuses %j', (text) => {
    expect(parseRequestBudget(text)).toBeUndefined()
  })

  it('is a rate per second', () => {
    expect(requestsPerSecond({ requests: 60, per: 'hour' })).toBeCloseTo(1 / 60)
    expect(requestsPerSecond({ requests: 250, per: 'day' })).toBeCloseTo(250 / 86_400)
  })
})

describe('the effective interval', () => {
  const hourly60 = 1 / 60
  it('is the poll interval while the budget covers every active task', () => {
    expect(effectiveIntervalMs(7_200_000, 100, hourly60, 1)).toBe(7_200_000)
  })

  it('grows with the active tasks past the budget: 600 USPS tasks at 60 an hour are fetched every 10 hours', () => {
    expect(effectiveIntervalMs(7_200_000, 600, hourly60, 1)).toBe(36_000_000)
  })

  it('counts the numbers a request carries', () => {
    expect(effectiveIntervalMs(1000, 3000, 1, 30)).toBe(100_000)
  })
})
