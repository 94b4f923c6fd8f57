import type { CarrierLookup } from '../carriers/carrier'
import type { PushReader } from '../carriers/carrier-push'
import type { Database } from '../db/database'
import type { InboundRepository, PushedTask, WaitingPush } from '../db/inbound.repository'
import type { RefreshRepository } from '../db/refresh.repository'
import type { CarrierSnapshot } from '../domain/tracking-update'
import type { RefreshApply } from './refresh-apply'

/** Pushes applied a round. */
const BATCH = 200
/** Applied pushes past their week are deleted at most this often, by a round that found the queue short. */
const PRUNE_EVERY_MS = 60_000
/** How long a worker holds the tasks it applies. */
const LEASE_MS = 60_000
/** A push whose task a poll is fetching waits this long (the poll's answer may well bring its news). */
const HELD_RETRY_MS = 5_000

export interface InboundApplyOptions {
  /** How each source's pushes read, by source label (a route's, a pushing carrier's). */
  readers: ReadonlyMap<string, PushReader>
  /** When a pushed task is read again to reconcile, by channel code (a route's poll interval, a pushing carrier's reconciliation). */
  reconcileMs: ReadonlyMap<string, number>
  /** By channel code: a task a push makes terminal is read once more this soon (its carrier's whole answer); else never. */
  terminalRefreshMs?: ReadonlyMap<string, number>
  now?: () => Date
  /** After a change was recorded in the outbox (wakes the delivery loops). */
  onNotification?: () => void
  counted?: (source: string, outcome: string) => void
}

/** A push read: what it says of one number, or why it says nothing to apply. */
type Update = { push: WaitingPush; reader: PushReader; carrierCode: string; trackingNumber: string; lookup: CarrierLookup }
type Read = { push: WaitingPush; outcome: string } | Update

/** A pushed number as one key (a carrier code belongs to one source). */
const numberOf = (n: { carrierCode: string; trackingNumber: string }) => `${n.carrierCode} ${n.trackingNumber}`

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>()
  for (const item of items) {
    const group = groups.get(keyOf(item))
    if (group) group.push(item)
    else groups.set(keyOf(item), [item])
  }
  return groups
}

/**
 * Applies stored pushes (docs/carriers.md, "Pushes"), a batch at a time, through the refresh's
 * own apply: the pushes' tasks are claimed together as a poll claims them (a task a poll is
 * fetching is left to it, and its push applied once that claim ends), and what each number's
 * pushes say is applied as a fetch's answer would be, all in the apply's shared transactions: the
 * answer fingerprint writes nothing for a push that changes nothing, events merge by their
 * identity. Pushes out of order are merged by event time: of a number's pushes in a batch, the
 * one with the newest event gives the status and all give their events; a push older than the
 * task's newest event brings its events but moves no status.
 */
export class InboundApplyService {
  private readonly now: () => Date
  private prunedAt = -Infinity

  constructor(
    private readonly db: Database,
    private readonly repository: InboundRepository,
    private readonly refresh: Pick<RefreshRepository, 'claimTasks' | 'releaseClaim'>,
    private readonly applier: RefreshApply,
    private readonly options: InboundApplyOptions,
  ) {
    this.now = options.now ?? (() => new Date())
  }

  /**
   * One batch; true when it was full (more may be waiting). Its pushes stay locked by the claiming
   * transaction while they are applied in the apply's own, and are settled in it: a worker that
   * dies leaves them waiting, and their second application changes nothing.
   */
  async runRound(): Promise<boolean> {
    const claimed = await this.db.transaction(async (tx) => {
      const pushes = await this.repository.claim(tx, BATCH, LEASE_MS)
      const { settled, held } = await this.apply(pushes)
      await this.repository.settle(
        tx,
        [...settled].map(([push, outcome]) => ({ id: push.id, outcome })),
        held.map((push) => push.id),
        HELD_RETRY_MS,
      )
      return { pushes, settled }
    })
    for (const [push, outcome] of claimed.settled) this.options.counted?.(push.source, outcome)
    const full = claimed.pushes.length === BATCH
    if (!full && this.now().getTime() - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = this.now().getTime()
      await this.repository.prune()
    }
    return full
  }

  /** Applies a batch of pushes: what each did, and those whose task a poll holds. */
  private async apply(pushes: WaitingPush[]): Promise<{ settled: Map<WaitingPush, string>; held: WaitingPush[] }> {
    const settled = new Map<WaitingPush, string>()
    const updates: Update[] = []
    for (const read of pushes.map((push) => this.read(push))) {
      if ('outcome' in read) settled.set(read.push, read.outcome)
      else updates.push(read)
    }
    // Each number's news: the status of its push with the newest event (the later push on a tie),
    // with the events of all its pushes.
    const news = new Map<string, Update>()
    for (const update of updates) {
      const kept = news.get(numberOf(update))
      if (!kept) news.set(numberOf(update), update)
      else {
        const [older, newer] = newestEvent(update.lookup) >= newestEvent(kept.lookup) ? [kept, update] : [update, kept]
        news.set(numberOf(update), { ...newer, lookup: mergedEvents(newer.lookup, older.lookup) })
      }
    }
    const byNumber = groupBy(await this.repository.tasksOf([...news.values()]), numberOf)
    const heldNumbers = new Set<string>()
    for (const [reader, mine] of groupBy([...news.values()], (u) => u.reader)) {
      for (const number of await this.applyChannel(reader, mine, byNumber)) heldNumbers.add(number)
    }
    const held: WaitingPush[] = []
    for (const update of updates) {
      if (heldNumbers.has(numberOf(update))) held.push(update.push)
      else settled.set(update.push, byNumber.has(numberOf(update)) ? 'applied' : 'unknown_number')
    }
    return { settled, held }
  }

  private read(push: WaitingPush): Read {
    const reader = this.options.readers.get(push.source)
    if (!reader) return { push, outcome: 'unknown_source' }
    let body: unknown
    try {
      body = JSON.parse(push.body.toString('utf8'))
    } catch {
      return { push, outcome: 'malformed' }
    }
    const pushed = reader.readPush(body)
    if (!pushed) return { push, outcome: 'ignored' }
    // TRACKING_STOPPED and the like: the registrations follow the tasks, not the aggregator.
    if (!pushed.lookup) return { push, outcome: `noted_${pushed.event.toLowerCase() || 'event'}` }
    const named = reader.taskOf(pushed.record)
    if (!named) return { push, outcome: 'unknown_carrier' }
    return { push, reader, ...named, lookup: pushed.lookup }
  }

  /** Applies a source's news to the tasks of its numbers; the numbers with a task a poll holds (their pushes wait). */
  private async applyChannel(reader: PushReader, updates: Update[], byNumber: Map<string, PushedTask[]>): Promise<string[]> {
    const tasks = updates.flatMap((u) => byNumber.get(numberOf(u)) ?? [])
    if (tasks.length === 0) return []
    const claimed = await this.db.transaction((tx) =>
      this.refresh.claimTasks(
        tx,
        reader.code,
        tasks.map((t) => t.taskId),
        LEASE_MS,
      ),
    )
    const claimedIds = new Set(claimed.map((c) => c.id))
    const held = [...new Set(tasks.filter((t) => !claimedIds.has(t.taskId)).map(numberOf))]
    if (claimed.length === 0) return held
    const news = new Map(updates.map((u) => [numberOf(u), u.lookup]))
    const known = new Map(tasks.map((t) => [t.taskId, t]))
    const fetchedAt = this.now()
    const nextRefreshInMs = this.options.reconcileMs.get(reader.code) ?? 86_400_000
    const terminalRefreshInMs = this.options.terminalRefreshMs?.get(reader.code)
    try {
      const outcomes = await this.applier.apply(
        claimed.map((task) => ({
          task,
          snapshot: snapshotFor(news.get(numberOf(task))!, known.get(task.id)),
          fetchedAt,
          nextRefreshInMs,
          ...(terminalRefreshInMs === undefined ? {} : { terminalRefreshInMs }),
        })),
      )
      if (outcomes.some((o) => o.applied && o.notified > 0)) this.options.onNotification?.()
    } finally {
      await this.refresh.releaseClaim(claimed[0]!.leaseToken, [])
    }
    // Applied to the tasks claimed; a number with a task held is applied again to all once that claim ends.
    return held
  }
}

/** The time of a lookup's newest event (-Infinity without one). */
function newestEvent(lookup: CarrierLookup): number {
  return lookup.found ? Math.max(-Infinity, ...lookup.snapshot.events.map((e) => e.eventTime.getTime())) : -Infinity
}

/** `newer` with the events of `older` it lacks, in time order. */
function mergedEvents(newer: CarrierLookup, older: CarrierLookup): CarrierLookup {
  if (!older.found) return newer
  if (!newer.found) return older
  const events = new Map([...older.snapshot.events, ...newer.snapshot.events].map((e) => [e.key, e]))
  return { found: true, snapshot: { ...newer.snapshot, events: [...events.values()].sort((a, b) => a.eventTime.getTime() - b.eventTime.getTime()) } }
}

/**
 * The snapshot a push gives a task: as pushed, or, when the task already has an event newer than
 * any of the push's, its events only (an older push moves no status, estimate or address).
 */
function snapshotFor(lookup: CarrierLookup, task: PushedTask | undefined): CarrierSnapshot | undefined {
  if (!lookup.found) return undefined
  const snapshot = lookup.snapshot
  if (!task?.newestEventAt || task.newestEventAt.getTime() <= newestEvent(lookup)) return snapshot
  return { ...snapshot, standardStatus: null, milestone: null, carrierStatus: '', estimatedDeliveryAt: null, originAddress: null, destinationAddress: null }
}
