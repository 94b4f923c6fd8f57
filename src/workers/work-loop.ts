/**
 * A background worker loop (the refresh worker, the webhook worker).
 *
 *   idle     waiting for a wake-up: a NOTIFY on its channel (PostgreSQL), a call to wake()
 *            (in-process: a status change wakes the webhook loop), or the poll tick every
 *            `pollMs`, the fallback that always works
 *   running  one round after another while a round says more may be waiting
 *   stopped  stop() was called: no new round starts; stop() resolves when the current one ends
 *
 * A round that throws (the database is down) is logged, and the next tick tries again; whatever
 * it had claimed comes back when its lease runs out.
 */
export interface LoopLog {
  warn(obj: object, msg: string): void
}

export interface WorkLoopOptions {
  pollMs: number
  /** Subscribes to wake-ups; returns the unsubscribe. */
  listen?: (onWake: () => void) => Promise<() => Promise<void>>
}

export class WorkLoop {
  private state: 'idle' | 'running' | 'stopped' = 'idle'
  private timer: NodeJS.Timeout | undefined
  private current: Promise<void> = Promise.resolve()
  private wakeRequested = false
  private unlisten: () => Promise<void> = async () => {}

  constructor(
    private readonly name: string,
    /** One round of work; resolves true when more work may be waiting right now. */
    private readonly round: () => Promise<boolean>,
    private readonly options: WorkLoopOptions,
    private readonly log: LoopLog,
  ) {}

  async start(): Promise<void> {
    if (this.options.listen) this.unlisten = await this.options.listen(() => this.wake())
    this.timer = setInterval(() => this.wake(), this.options.pollMs)
    this.timer.unref()
    this.wake()
  }

  wake(): void {
    if (this.state === 'stopped') return
    if (this.state === 'running') {
      this.wakeRequested = true
      return
    }
    this.state = 'running'
    this.current = this.drain().finally(() => {
      if (this.state === 'running') this.state = 'idle'
    })
  }

  private async drain(): Promise<void> {
    do {
      this.wakeRequested = false
      try {
        if (await this.round()) this.wakeRequested = true
      } catch (error) {
        this.log.warn({ err: error, loop: this.name }, 'worker round failed')
        return
      }
    } while (this.wakeRequested && this.state === 'running')
  }

  async stop(): Promise<void> {
    this.state = 'stopped'
    clearInterval(this.timer)
    await this.unlisten()
    await this.current
  }
}
