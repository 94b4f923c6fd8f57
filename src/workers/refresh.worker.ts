import type { FastifyBaseLogger } from 'fastify'
import type { RefreshService } from '../services/refresh.service'

/**
 * The refresh worker loop.
 *
 *   idle     waiting for a wake-up: a NOTIFY that tasks were created (PostgreSQL), a call to
 *            wake(), or the poll tick (every `pollMs`, the fallback that always works)
 *   running  one round after another while rounds come back full (more work may be due)
 *   stopped  stop() was called: no new round starts; stop() resolves when the current one ends
 *
 * A round that throws (database down) is logged and retried at the next tick; the tasks it had
 * claimed come back when their lease runs out.
 */
export class RefreshWorker {
  private state: 'idle' | 'running' | 'stopped' = 'idle'
  private timer: NodeJS.Timeout | undefined
  private current: Promise<void> = Promise.resolve()
  private wakeRequested = false
  private unlisten: () => Promise<void> = async () => {}

  constructor(
    private readonly service: RefreshService,
    private readonly options: { pollMs: number; claimLimit: number; listen?: (onWake: () => void) => Promise<() => Promise<void>> },
    private readonly log: FastifyBaseLogger,
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
        const round = await this.service.runRound()
        if (round.claimed >= this.options.claimLimit) this.wakeRequested = true
      } catch (error) {
        this.log.warn({ err: error }, 'refresh round failed')
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
