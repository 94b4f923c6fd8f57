/** Tasks whose ids were drawn before a round's newest but committed after it are looked at again by the next. */
const LATE_COMMITS = 1000

/** Which tasks a round looks at: those later than `afterTaskId`, or all of them in a sweep (0). */
export interface TaskWindow {
  afterTaskId: number
  sweep: boolean
  /** The round ended; `more`: it claimed all it could and the next looks from the same point. */
  close(more: boolean): void
}

/**
 * The tasks a background round reads (the routes' registrations, the carriers' push
 * subscriptions): a carrier may have a million tasks, so a round looks for new numbers among the
 * tasks created since the last one, by key, and every `sweepEveryMs` at all of them (for the
 * tasks that changed carrier, became active again, stopped or were deleted). Kept in memory: a
 * process that starts sweeps first.
 */
export class TaskWindows {
  private readonly seen = new Map<string, { taskId: number; sweptAt: number }>()

  constructor(
    private readonly sweepEveryMs: number,
    private readonly now: () => number,
  ) {}

  /** The window of `key`'s round, given the newest task id now. */
  open(key: string, newestTaskId: number): TaskWindow {
    const last = this.seen.get(key)
    const sweep = !last || this.now() - last.sweptAt >= this.sweepEveryMs
    return {
      afterTaskId: sweep ? 0 : Math.max(0, last.taskId - LATE_COMMITS),
      sweep,
      close: (more) => {
        if (!more) this.seen.set(key, { taskId: newestTaskId, sweptAt: sweep ? this.now() : last!.sweptAt })
      },
    }
  }
}
