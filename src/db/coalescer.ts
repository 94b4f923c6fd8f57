import { AppError } from '../domain/errors'

/**
 * Groups concurrent calls into one statement: the subscribe upserts of many requests become one
 * multi-row upsert, one round trip and one commit instead of one each; the query endpoint's
 * lookups become one multi-row read.
 *
 * A call leaves at once when fewer than `maxInFlight` groups are running, so a lone request
 * never waits. Otherwise it queues, and the queue leaves as one group (at most `maxGroup`
 * calls) the moment a running group finishes: the busier the service, the larger the groups.
 *
 * Calls with the same key (writes say which row they touch; reads give no key) never share a
 * group and never run at the same time (a multi-row upsert cannot touch one row twice): a later
 * call on a busy key waits for the earlier one, so within a process the calls on one key take
 * effect in the order they were made, exactly as one statement per call would when issued one
 * after another.
 *
 * If a group's statement fails, the error is not one call's to own: each call of the group is
 * run again alone (`runOne`), so only a call that fails by itself sees an error. An error in
 * `isShared` (by default: the database is unavailable) fails the whole group at once instead.
 */
export interface CoalescerOptions<I, O> {
  maxInFlight: number
  maxGroup: number
  /** Calls with the same key are kept apart (writes to one row). Without it calls are independent (reads). */
  key?(item: I): string
  /** One statement for all `items`; answers in the same order. */
  run(items: I[]): Promise<O[]>
  runOne(item: I): Promise<O>
  isShared?(error: unknown): boolean
}

interface Pending<I, O> {
  item: I
  key: string | undefined
  resolve(value: O): void
  reject(error: unknown): void
}

export class Coalescer<I, O> {
  private queue: Pending<I, O>[] = []
  private readonly busyKeys = new Set<string>()
  private inFlight = 0

  constructor(private readonly options: CoalescerOptions<I, O>) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, key: this.options.key?.(item), resolve, reject })
      this.pump()
    })
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const group = this.takeGroup()
      if (group.length === 0) return
      this.inFlight++
      void this.send(group).finally(() => {
        this.inFlight--
        for (const call of group) if (call.key !== undefined) this.busyKeys.delete(call.key)
        this.pump()
      })
    }
  }

  /** The oldest queued calls whose keys are free, in queue order. */
  private takeGroup(): Pending<I, O>[] {
    const group: Pending<I, O>[] = []
    const rest: Pending<I, O>[] = []
    for (const call of this.queue) {
      if (group.length >= this.options.maxGroup) {
        rest.push(call)
      } else if (call.key === undefined) {
        group.push(call)
      } else if (!this.busyKeys.has(call.key)) {
        this.busyKeys.add(call.key)
        group.push(call)
      } else {
        rest.push(call)
      }
    }
    this.queue = rest
    return group
  }

  private async send(group: Pending<I, O>[]): Promise<void> {
    if (group.length === 1) return settle(group[0]!, () => this.options.runOne(group[0]!.item))
    let answers: O[]
    try {
      answers = await this.options.run(group.map((call) => call.item))
    } catch (error) {
      if ((this.options.isShared ?? isUnavailable)(error)) {
        for (const call of group) call.reject(error)
        return
      }
      await Promise.all(group.map((call) => settle(call, () => this.options.runOne(call.item))))
      return
    }
    group.forEach((call, i) => call.resolve(answers[i]!))
  }
}

const isUnavailable = (error: unknown) => error instanceof AppError && error.code === 'unavailable'

async function settle<I, O>(call: Pending<I, O>, work: () => Promise<O>): Promise<void> {
  try {
    call.resolve(await work())
  } catch (error) {
    call.reject(error)
  }
}
