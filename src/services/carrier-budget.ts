/**
 * A per-carrier request budget: a token bucket (`ratePerSecond`, bursting to one second's worth,
 * or to one request for a budget slower than one a second: USPS's 60 an hour is a request a
 * minute) and a pause that a carrier's 429 / Retry-After imposes. FedEx allows 1,400 requests per
 * 10 s per project; each process takes the share it is configured with.
 */
export class CarrierBudget {
  private tokens: number
  private refilledAt: number
  private pausedUntil = 0
  private readonly capacity: number

  constructor(
    readonly ratePerSecond: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.capacity = Math.max(1, ratePerSecond)
    this.tokens = this.capacity
    this.refilledAt = now()
  }

  /** How many requests the budget lets through from now over the next `ms` (none while paused). */
  requestsWithin(ms: number): number {
    if (this.paused) return 0
    this.refill(this.now())
    return Math.floor(this.tokens + (ms / 1000) * this.ratePerSecond)
  }

  /** Milliseconds until the budget lets a request through. */
  msUntilNext(): number {
    const now = this.now()
    if (this.pausedUntil > now) return this.pausedUntil - now
    this.refill(now)
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000)
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.refilledAt) / 1000) * this.ratePerSecond)
    this.refilledAt = now
  }

  /** True while the carrier asked us to wait. */
  get paused(): boolean {
    return this.pausedUntil > this.now()
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms)
  }

  /** Waits until a request may be sent, and takes its token. */
  async acquire(): Promise<void> {
    for (;;) {
      const now = this.now()
      if (this.pausedUntil > now) {
        await this.sleep(this.pausedUntil - now)
        continue
      }
      this.refill(now)
      if (this.tokens >= 1) {
        this.tokens -= 1
        return
      }
      await this.sleep(Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000))
    }
  }
}
