import { AsyncResource } from 'node:async_hooks'

/**
 * A background worker loop (the refresh worker, the webhook worker).
 *
 *   idle     waiting for a wake-up: a NOTIFY on its channel (PostgreSQL), a call to wake()
 *            (in-process: a status change wakes the webhook loop), the time the last round said
 *            work falls due (when sooner than the next tick), or the poll tick every `pollMs`,
 *            the fallback that always works
 *   running  one round after another while a round says more may be waiting
 *   stopped  stop() was called: no new round starts; stop() resolves when the current one ends
 *
 * A round that throws (the database is down) is logged, and the next tick tries again; whatever
 * it had claimed comes back when its lease runs out. Rounds run in the loop's own async context,
 * whoever wakes it (a request, a committed unit of work, a NOTIFY): never in a caller's.
 */
export interface LoopLog {
  warn(obj: object, msg: string): void
}

/** What a round says of the work left: more now (true), none known (false), or due in wakeInMs. */
export type RoundOutcome = boolean | { more: boolean; wakeInMs?: number }

export interface WorkLoopOptions {
  pollMs: number
  /** Subscribes to wake-ups; returns the unsubscribe. */
  listen?: (onWake: () => void) => Promise<() => Promise<void>>
}

export class WorkLoop {
  private state: 'idle' | 'running' | 'stopped' = 'idle'
  private timer: NodeJS.Timeout | undefined
  /** The wake-up a round asked for. */
  private soon: NodeJS.Timeout | undefined
  private current: Promise<void> = Promise.resolve()
  private wakeRequested = false
  private unlisten: () => Promise<void> = async () => {}
  private readonly scope = new AsyncResource('tracking.work-loop')

  constructor(
    private readonly name: string,
    /** One round of work; resolves true when more work may be waiting right now. */
    private readonly round: () => Promise<RoundOutcome>,
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
    this.current = this.scope
      .runInAsyncScope(() => this.drain())
      .finally(() => {
        if (this.state === 'running') this.state = 'idle'
      })
  }

  private async drain(): Promise<void> {
    do {
      this.wakeRequested = false
      clearTimeout(this.soon)
      try {
        const outcome = await this.round()
        const { more, wakeInMs } = typeof outcome === 'boolean' ? { more: outcome, wakeInMs: undefined } : outcome
        if (more) this.wakeRequested = true
        else if (wakeInMs !== undefined && wakeInMs < this.options.pollMs && this.state === 'running') {
          this.soon = setTimeout(() => this.wake(), wakeInMs)
          this.soon.unref()
        }
      } catch (error) {
        this.log.warn({ err: error, loop: this.name }, 'worker round failed')
        return
      }
    } while (this.wakeRequested && this.state === 'running')
  }

  async stop(): Promise<void> {
    this.state = 'stopped'
    clearInterval(this.timer)
    clearTimeout(this.soon)
    await this.unlisten()
    await this.current
  }
}
