import type { RefreshRepository } from '../db/refresh.repository'
import { effectiveIntervalMs } from '../domain/request-budget'

/** How long a count of the active tasks is used: it moves slowly, and counting reads the whole due index. */
const COUNT_TTL_MS = 60_000

/**
 * Each carrier's active tasks, counted at most once a minute per process, and what they make of
 * its polling: the interval its budget allows (domain/request-budget.ts).
 */
export class CarrierLoad {
  private counts: { value: Promise<Record<string, number>>; until: number } | undefined

  constructor(
    private readonly repository: Pick<RefreshRepository, 'activeTasksByCarrier'>,
    private readonly now: () => number = Date.now,
  ) {}

  async activeTasks(): Promise<Record<string, number>> {
    const now = this.now()
    if (!this.counts || this.counts.until <= now) {
      const value = this.repository.activeTasksByCarrier()
      this.counts = { value, until: now + COUNT_TTL_MS }
      // A failed count is not kept: the next call asks again.
      value.catch(() => (this.counts = undefined))
    }
    return this.counts.value
  }

  /**
   * How often each active task of the carriers one channel fetches (a carrier, or a route's) is
   * fetched: its poll interval, longer when its budget cannot pay for it.
   */
  async intervalMs(carrierCodes: readonly string[], pollIntervalMs: number, requestsPerSecond: number, numbersPerRequest: number): Promise<number> {
    const counts = await this.activeTasks()
    const active = carrierCodes.reduce((sum, code) => sum + (counts[code] ?? 0), 0)
    return effectiveIntervalMs(pollIntervalMs, active, requestsPerSecond, numbersPerRequest)
  }
}
