import { AppError } from '../domain/errors'
import { deadlinePassed } from './database-errors'

/**
 * Groups concurrent calls into one statement: the subscribe upserts of many requests become one
 * multi-row upsert, one round trip and one commit instead of one each; the query endpoint's
 * lookups become one multi-row read.
 *
 * A call leaves at once when fewer than `maxInFlight` groups are running, so a lone request
 * never waits. Otherwise it queues, and the queue leaves as one group (at most `maxGroup`
 * calls, or rows when `size` says how many rows a call holds) the moment a running group
 * finishes: the busier the service, the larger the groups. With `gather`, a call that finds a
 * group running and a slot free waits a moment for others to join it (see `gather`).
 *
 * Calls sharing a key (writes say which rows they touch; reads give no keys) never share a
 * group and never run at the same time (a multi-row upsert cannot touch one row twice): a later
 * call on a busy key waits for the earlier one, and so does any call after it on one of its
 * keys, so within a process the calls on one key take effect in the order they were made,
 * exactly as one statement per call would when issued one after another.
 *
 * If a group's statement fails, the error is not one call's to own: each call of the group is
 * run again alone (`runOne`), so only a call that fails by itself sees an error. An error in
 * `isShared` (by default: the database is unavailable) fails the whole group at once instead.
 */
export interface CoalescerOptions<I, O> {
  maxInFlight: number
  /** The most calls a group holds, or rows with `size`; a call larger than that leaves alone. */
  maxGroup: number
  /** How many rows a call holds (1 by default). */
  size?(item: I): number
  /**
   * While a group is running, calls wait up to `ms` for others before taking a free slot, unless
   * `enough` rows are queued already; on an idle coalescer a call still leaves at once. Calls
   * arrive in bursts under load (the answers of one group bring their clients' next requests):
   * without it, the first of a burst took the free slot alone and the rest queued behind it, and
   * two thirds of the statements carried a single batch.
   */
  gather?: { ms: number; enough: number }
  /**
   * A call not answered this long after it was submitted fails with `unavailable`, whether it is
   * still queued (it leaves the queue) or its statement is running (its answer is dropped): a
   * request is never held past its deadline behind statements that hang.
   */
  deadlineMs?: number
  /** Calls sharing a key are kept apart (writes to one row). Without it calls are independent (reads). */
  keys?(item: I): readonly string[]
  /** One statement for all `items`; answers in the same order. */
  run(items: I[]): Promise<O[]>
  runOne(item: I): Promise<O>
  isShared?(error: unknown): boolean
}

interface Pending<I, O> {
  item: I
  keys: readonly string[]
  size: number
  resolve(value: O): void
  reject(error: unknown): void
}

export class Coalescer<I, O> {
  private queue: Pending<I, O>[] = []
  private readonly busyKeys = new Set<string>()
  private inFlight = 0
  private gatherTimer: NodeJS.Timeout | undefined
  /** Calls with a deadline that are not answered yet (see `watch`). */
  private readonly watched = new Set<{ call: Pending<I, O>; until: number }>()
  private sweeper: NodeJS.Timeout | undefined

  constructor(private readonly options: CoalescerOptions<I, O>) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const call: Pending<I, O> = { item, keys: this.options.keys?.(item) ?? [], size: this.options.size?.(item) ?? 1, resolve, reject }
      if (this.options.deadlineMs !== undefined) this.watch(call, this.options.deadlineMs)
      this.queue.push(call)
      this.pump()
    })
  }

  /**
   * Fails `call` once it is unanswered `deadlineMs` after now. One sweep for every call, a tenth of
   * the deadline apart (while any call is unanswered), rather than a timer per call: a timer for
   * each subscribe cost the busy API process a few per cent of its requests.
   */
  private watch(call: Pending<I, O>, deadlineMs: number): void {
    const { resolve, reject } = call
    const watched = { call, until: Date.now() + deadlineMs }
    this.watched.add(watched)
    call.resolve = (value) => {
      this.watched.delete(watched)
      resolve(value)
    }
    call.reject = (error) => {
      this.watched.delete(watched)
      reject(error)
    }
    this.sweeper ??= setInterval(
      () => {
        const now = Date.now()
        for (const w of this.watched) {
          if (w.until > now) continue
          const queued = this.queue.indexOf(w.call)
          if (queued >= 0) this.queue.splice(queued, 1)
          w.call.reject(deadlinePassed('the request', deadlineMs))
        }
        if (this.watched.size === 0) {
          clearInterval(this.sweeper)
          this.sweeper = undefined
        }
      },
      Math.max(1, Math.floor(deadlineMs / 10)),
    )
    this.sweeper.unref()
  }

  /** Sends what may leave now; `waited` when the gather wait is over (see `gather`). */
  private pump(waited = false): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      if (!waited && this.waitsForMore()) return
      const group = this.takeGroup()
      if (group.length === 0) return
      this.inFlight++
      void this.send(group).then((handOut) => {
        this.inFlight--
        for (const call of group) for (const key of call.keys) this.busyKeys.delete(key)
        // The next group leaves before this one's callers go on: their work (answers to build
        // and send) would otherwise keep the database idle for as long as it takes.
        this.pump()
        handOut()
      })
    }
  }

  /** Whether the queue stays to gather more calls (see `gather`); the timer pumps it later. */
  private waitsForMore(): boolean {
    const gather = this.options.gather
    if (gather && this.inFlight > 0 && this.queue.reduce((rows, call) => rows + call.size, 0) < gather.enough) {
      this.gatherTimer ??= setTimeout(() => {
        this.gatherTimer = undefined
        this.pump(true)
      }, gather.ms)
      return true
    }
    clearTimeout(this.gatherTimer)
    this.gatherTimer = undefined
    return false
  }

  /** The oldest queued calls whose keys are free and that fit, in queue order. */
  private takeGroup(): Pending<I, O>[] {
    const group: Pending<I, O>[] = []
    const rest: Pending<I, O>[] = []
    // The keys of calls left waiting: a later call on one of them stays behind the earlier call.
    const waiting = new Set<string>()
    let size = 0
    for (const call of this.queue) {
      const fits = group.length === 0 || size + call.size <= this.options.maxGroup
      if (fits && call.keys.every((key) => !this.busyKeys.has(key) && !waiting.has(key))) {
        for (const key of call.keys) this.busyKeys.add(key)
        group.push(call)
        size += call.size
      } else {
        rest.push(call)
        for (const key of call.keys) waiting.add(key)
      }
    }
    this.queue = rest
    return group
  }

  /** Runs a group; resolves (never rejects) to what hands its answers and errors out. */
  private async send(group: Pending<I, O>[]): Promise<() => void> {
    if (group.length === 1) return settleLater(group[0]!, await outcomeOf(() => this.options.runOne(group[0]!.item)))
    let answers: O[]
    try {
      answers = await this.options.run(group.map((call) => call.item))
    } catch (error) {
      if ((this.options.isShared ?? isUnavailable)(error)) return () => group.forEach((call) => call.reject(error))
      const outcomes = await Promise.all(group.map((call) => outcomeOf(() => this.options.runOne(call.item))))
      return () => group.forEach((call, i) => settleLater(call, outcomes[i]!)())
    }
    return () => group.forEach((call, i) => call.resolve(answers[i]!))
  }
}

const isUnavailable = (error: unknown) => error instanceof AppError && error.code === 'unavailable'

type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown }

async function outcomeOf<O>(work: () => Promise<O>): Promise<Outcome<O>> {
  try {
    return { ok: true, value: await work() }
  } catch (error) {
    return { ok: false, error }
  }
}

function settleLater<I, O>(call: Pending<I, O>, outcome: Outcome<O>): () => void {
  return () => (outcome.ok ? call.resolve(outcome.value) : call.reject(outcome.error))
}
