/**
 * A carrier's request budget, as its quota is written: so many requests a second, a minute, an
 * hour or a day (USPS: about 60 an hour; DHL: 250 a day by default). Pure.
 */

export const BUDGET_PERIODS = { second: 1, minute: 60, hour: 3_600, day: 86_400 } as const
export type BudgetPeriod = keyof typeof BUDGET_PERIODS

export interface RequestBudget {
  requests: number
  per: BudgetPeriod
}

/** "50", "50/second", "60/hour", "250/day" → the budget; undefined for anything else. */
export function parseRequestBudget(text: string): RequestBudget | undefined {
  const match = /^\s*(\d{1,9})\s*(?:\/\s*(second|minute|hour|day)s?)?\s*$/i.exec(text)
  if (!match || Number(match[1]) < 1) return undefined
  return { requests: Number(match[1]), per: (match[2]?.toLowerCase() ?? 'second') as BudgetPeriod }
}

export function requestsPerSecond(budget: RequestBudget): number {
  return budget.requests / BUDGET_PERIODS[budget.per]
}

export function describeBudget(budget: RequestBudget): string {
  return `${budget.requests}/${budget.per}`
}

/**
 * How often each active task of a carrier can be fetched within its budget: the poll interval, or
 * longer when the carrier's active tasks need more requests than the budget allows in it
 * (active tasks ÷ numbers a request ÷ requests a second), so that every task is fetched in turn
 * and none more often than the budget pays for.
 */
export function effectiveIntervalMs(pollIntervalMs: number, activeTasks: number, perSecond: number, numbersPerRequest: number): number {
  const requestsNeeded = Math.ceil(activeTasks / numbersPerRequest)
  return Math.max(pollIntervalMs, Math.ceil((requestsNeeded / perSecond) * 1000))
}
