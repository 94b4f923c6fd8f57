/**
 * When a task is fetched again after a failed fetch (a timeout, a 5xx, a 429, garbage, a carrier
 * that did not mention the number): exponential backoff from `baseMs`, doubled per consecutive
 * failure up to `maxMs`, jittered by ±20 % so that tasks failed together do not return together,
 * and never sooner than the carrier asked (its Retry-After).
 */
export interface RefreshRetryPolicy {
  baseMs: number
  maxMs: number
}

/** `failures`: the consecutive failures before this one (0 for the first). `random`: 0..1. */
export function refreshRetryDelayMs(failures: number, policy: RefreshRetryPolicy, carrierMinMs: number, random: number): number {
  const backoff = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(failures, 20))
  return Math.max(carrierMinMs, Math.round(backoff * (0.8 + random * 0.4)))
}
