/**
 * A per-carrier request budget: a token bucket (`ratePerSecond`, bursting to one second's worth)
 * and a pause that a carrier's 429 / Retry-After imposes. FedEx allows 1,400 requests per 10 s per
 * project; each process takes the share it is configured with.
 */
export class CarrierBudget {
  private tokens: number
  private refilledAt: number
  private pausedUntil = 0

  constructor(
    readonly ratePerSecond: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.tokens = ratePerSecond
    this.refilledAt = now()
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
      this.tokens = Math.min(this.ratePerSecond, this.tokens + ((now - this.refilledAt) / 1000) * this.ratePerSecond)
      this.refilledAt = now
      if (this.tokens >= 1) {
        this.tokens -= 1
        return
      }
      await this.sleep(Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000))
    }
  }
}
