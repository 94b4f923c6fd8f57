import { CARRIERS } from '../src/carriers/registry'

/**
 * The refresh figure's worker settings (bench/run.ts, and bench/refresh-ab-run.ts for both sides
 * of its comparison): the carriers' request budgets and the claim raised so that the simulator,
 * not a budget, is the limit; webhooks to the loopback receiver allowed, 64 at once.
 */
/** Every carrier's request budget far above what one worker spends, so that a figure is the worker's. */
export const EVERY_CARRIER_UNBOUNDED: Record<string, string> = Object.fromEntries(CARRIERS.map((c) => [c.env.requestBudget.variable, '1000']))

export const REFRESH_FIGURE_WORKER_ENV = {
  FEDEX_REQUEST_BUDGET: '1000',
  UPARCEL_REQUEST_BUDGET: '1000',
  REFRESH_CLAIM_LIMIT: '1000',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_HOST_CONCURRENCY: '64',
} as const
