/**
 * The API requests this process is serving right now, told by the HTTP layer, read by the workers
 * beside it (ROLE=all): while at least `busyAt` are in flight the API is saturated, and a refresh
 * round yields to it (docs/refresh.md, "API first"). In-flight requests are the signal because
 * they are a saturation's own measure: an unsaturated process answers in a millisecond or two, so
 * even a thousand requests a second keep one or two in flight.
 */
export class ApiPressure {
  private inFlight = 0
  /** Set while the count is below `busyAt` but has not stayed there for CALM_MS yet. */
  private calming: NodeJS.Timeout | undefined
  private readonly waiting = new Set<() => void>()

  /** `busyAt` 0: never busy (the workers never yield). */
  constructor(private readonly busyAt: number) {}

  /** A request began; ended() is called exactly once for it, when it was answered or abandoned. */
  began(): void {
    this.inFlight++
    if (this.inFlight === this.busyAt) {
      clearTimeout(this.calming)
      this.calming = undefined
    }
  }

  ended(): void {
    this.inFlight--
    // Answers come in groups (a coalesced insert answers dozens of requests at once) and a
    // saturating client sends the next ones at once: below the mark counts only once it stays there.
    if (this.inFlight === this.busyAt - 1) {
      this.calming = setTimeout(() => {
        this.calming = undefined
        for (const calm of [...this.waiting]) calm()
      }, CALM_MS)
      this.calming.unref()
    }
  }

  busy(): boolean {
    return this.busyAt > 0 && (this.inFlight >= this.busyAt || this.calming !== undefined)
  }

  /**
   * Resolves once the API is no longer busy, or after `maxWaitMs` if it still is: true when it
   * still is (the caller does the least it must), false when it is not.
   */
  yieldTo(maxWaitMs: number): Promise<boolean> {
    if (!this.busy()) return Promise.resolve(false)
    return new Promise((resolve) => {
      const done = (busy: boolean) => {
        clearTimeout(timer)
        this.waiting.delete(calm)
        resolve(busy)
      }
      const calm = () => done(false)
      const timer = setTimeout(() => done(this.busy()), maxWaitMs)
      this.waiting.add(calm)
    })
  }
}

/** How long the requests in flight stay below the mark before the API counts as calm. */
const CALM_MS = 50
