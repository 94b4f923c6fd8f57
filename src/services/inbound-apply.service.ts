import type { CarrierLookup } from '../carriers/carrier'
import type { CarrierRoute } from '../carriers/carrier-route'
import type { Database } from '../db/database'
import type { InboundRepository, PushedTask, WaitingPush } from '../db/inbound.repository'
import type { RefreshRepository } from '../db/refresh.repository'
import type { CarrierSnapshot } from '../domain/tracking-update'
import type { RefreshApply } from './refresh-apply'

/** Pushes applied a round. */
const BATCH = 100
/** How long a worker holds the pushes and tasks it applies. */
const LEASE_MS = 60_000

export interface InboundApplyOptions {
  /** The route whose pushes each source carries, by source label. */
  routes: ReadonlyMap<string, CarrierRoute>
  /** When a pushed task is read again to reconcile, by route code (its poll interval). */
  reconcileMs: ReadonlyMap<string, number>
  now?: () => Date
  /** After a change was recorded in the outbox (wakes the delivery loops). */
  onNotification?: () => void
  counted?: (source: string, outcome: string) => void
}

/**
 * Applies stored pushes in the order they arrived (docs/carriers.md, "Pushes"), each through the
 * refresh's own apply: the push's tasks are claimed as a poll claims them (a task a poll is
 * fetching is left to it, and the push applied once that claim ends), and what the push says is
 * applied as a fetch's answer would be: the answer fingerprint writes nothing for a push that
 * changes nothing, events merge by their identity, and a push older than the task's newest event
 * brings its events but moves no status (pushes out of order are merged by event time).
 */
export class InboundApplyService {
  private readonly now: () => Date

  constructor(
    private readonly db: Database,
    private readonly repository: InboundRepository,
    private readonly refresh: Pick<RefreshRepository, 'claimTasks' | 'releaseClaim'>,
    private readonly applier: RefreshApply,
    private readonly options: InboundApplyOptions,
  ) {
    this.now = options.now ?? (() => new Date())
  }

  /** One batch; true when it was full (more may be waiting). */
  async runRound(): Promise<boolean> {
    const pushes = await this.repository.claim(BATCH, LEASE_MS)
    const settled: { id: number; outcome: string }[] = []
    // In arrival order, one after another: two pushes of one number apply in the order sent.
    for (const push of pushes) {
      const outcome = await this.applyOne(push)
      if (outcome === 'held') continue
      settled.push({ id: push.id, outcome })
      this.options.counted?.(push.source, outcome)
    }
    await this.repository.settle(settled)
    if (pushes.length < BATCH) await this.repository.prune()
    return pushes.length === BATCH
  }

  /** What a push did; `held` when a poll holds its tasks (applied again when the lease lapses). */
  private async applyOne(push: WaitingPush): Promise<string> {
    const route = this.options.routes.get(push.source)
    if (!route) return 'unknown_source'
    let body: unknown
    try {
      body = JSON.parse(push.body.toString('utf8'))
    } catch {
      return 'malformed'
    }
    const pushed = route.readPush(body)
    if (!pushed) return 'ignored'
    // TRACKING_STOPPED and the like: the registrations follow the tasks, not the aggregator.
    if (!pushed.lookup) return `noted_${pushed.event.toLowerCase() || 'event'}`
    const named = route.taskOf(pushed.record)
    if (!named) return 'unknown_carrier'
    const tasks = await this.repository.tasksOf(named.carrierCode, named.trackingNumber)
    if (tasks.length === 0) return 'unknown_number'
    const claimed = await this.db.transaction((tx) =>
      this.refresh.claimTasks(
        tx,
        route.code,
        tasks.map((t) => t.taskId),
        LEASE_MS,
      ),
    )
    if (claimed.length === 0) return 'held'
    const fetchedAt = this.now()
    const nextRefreshInMs = this.options.reconcileMs.get(route.code) ?? 86_400_000
    const newest = new Map(tasks.map((t) => [t.taskId, t]))
    try {
      const outcomes = await this.applier.apply(
        claimed.map((task) => ({ task, snapshot: snapshotFor(pushed.lookup!, newest.get(task.id)), fetchedAt, nextRefreshInMs })),
      )
      if (outcomes.some((o) => o.applied && o.notified > 0)) this.options.onNotification?.()
    } finally {
      await this.refresh.releaseClaim(claimed[0]!.leaseToken, [])
    }
    // Some of its tasks were being fetched: applied to the others now, to those once their claim ends.
    return claimed.length < tasks.length ? 'held' : 'applied'
  }
}

/**
 * The snapshot a push gives a task: as pushed, or, when the task already has an event newer than
 * any of the push's, its events only (an older push moves no status, estimate or address).
 */
function snapshotFor(lookup: CarrierLookup, task: PushedTask | undefined): CarrierSnapshot | undefined {
  if (!lookup.found) return undefined
  const snapshot = lookup.snapshot
  const pushedNewest = Math.max(-Infinity, ...snapshot.events.map((e) => e.eventTime.getTime()))
  if (!task?.newestEventAt || task.newestEventAt.getTime() <= pushedNewest) return snapshot
  return { ...snapshot, standardStatus: null, milestone: null, carrierStatus: '', estimatedDeliveryAt: null, originAddress: null, destinationAddress: null }
}
