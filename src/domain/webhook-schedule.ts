import type { AttemptOutcome } from './outbox'

/**
 * Delivery states, of every channel of the outbox (docs/webhooks.md):
 *
 *   pending ──claim──▶ sending ──delivered─────────────────▶ success
 *                        │  ├──refused for good───────────▶ failed
 *                        │  ├──failed, last attempt───────▶ failed
 *                        │  └──failed─────────────────────▶ retry_wait ──due──▶ sending …
 *                        └──lease expired (worker died)──▶ as "failed"
 *
 * A webhook is delivered on a 2xx and refused for good on 410 Gone (outcomeOfStatus). A manual
 * redeliver moves success, failed or retry_wait back to pending and starts a new cycle of the
 * schedule. This file holds the pure part: what follows an attempt.
 */

/** Seconds to wait after attempt 1, 2, … of a cycle: 8 attempts in all. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000]

export function parseRetrySchedule(text: string | undefined): number[] {
  if (text === undefined || text.trim() === '') return DEFAULT_RETRY_SCHEDULE_SECONDS.map((s) => s * 1000)
  const parts = text.split(',').map((p) => p.trim())
  if (parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) throw new Error(`WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, got "${text}"`)
  return parts.map((p) => Math.round(Number(p) * 1000))
}

export type AttemptVerdict = { status: 'success' } | { status: 'failed' } | { status: 'retry_wait'; nextAttemptAt: Date }

export interface AttemptFacts {
  /** 1 for the first attempt of the current cycle. */
  attemptInCycle: number
  outcome: AttemptOutcome
  retryAfterMs: number | undefined
}

/** A webhook's answer as the schedule judges it: any 2xx delivers; 410 Gone says the endpoint is gone for good. */
export function outcomeOfStatus(statusCode: number): AttemptOutcome {
  if (statusCode >= 200 && statusCode < 300) return 'delivered'
  return statusCode === 410 ? 'refused' : 'failed'
}

export interface ScheduleContext {
  scheduleMs: number[]
  now: Date
  /** 0..1, for jitter (±10 %). */
  random: number
}

export function afterAttempt(facts: AttemptFacts, ctx: ScheduleContext): AttemptVerdict {
  if (facts.outcome === 'delivered') return { status: 'success' }
  if (facts.outcome === 'refused') return { status: 'failed' }
  const wait = ctx.scheduleMs[facts.attemptInCycle - 1]
  if (wait === undefined) return { status: 'failed' }
  let delay = wait * (0.9 + ctx.random * 0.2)
  // A receiver's Retry-After is honoured when it asks for more time, up to the longest wait of
  // the schedule: it cannot push a delivery out of its schedule altogether.
  if (facts.retryAfterMs !== undefined) delay = Math.max(delay, Math.min(facts.retryAfterMs, Math.max(...ctx.scheduleMs)))
  return { status: 'retry_wait', nextAttemptAt: new Date(ctx.now.getTime() + Math.round(delay)) }
}
