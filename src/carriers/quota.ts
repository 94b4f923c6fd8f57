/**
 * The window a carrier counts its quota in. Past a per-second quota the carrier's Retry-After
 * (or the refresh's pause of a second) is enough; past a longer one, without a Retry-After,
 * nothing is asked again before the window turns: the next minute (La Poste), the next hour
 * (USPS), midnight UTC (DHL, whose daily quota resets then).
 */
export type QuotaWindow = 'second' | 'minute' | 'hour' | 'day'

const WINDOW_MS: Record<QuotaWindow, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 }

/** Milliseconds until the current window ends (windows start on the UTC clock's second, hour or day). */
export function untilWindowEnds(window: QuotaWindow, now: number): number {
  return WINDOW_MS[window] - (now % WINDOW_MS[window])
}
