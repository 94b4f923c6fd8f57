import type { CarrierAdapter, CarrierLookup } from '../carriers/carrier'
import { CarrierError } from '../carriers/carrier'
import type { ApplyItem, ClaimedTask, RefreshRepository } from '../db/refresh.repository'
import { refreshRetryDelayMs } from '../domain/refresh-schedule'
import { resolveUpdate } from '../domain/tracking-update'
import { deliveriesOfChange } from '../domain/task-events'
import type { ServiceMetrics } from '../observability/metrics'
import type { CarrierBudget } from './carrier-budget'

export interface RefreshOptions {
  /** Cadence of active tasks (POLL_INTERVAL_SECONDS). */
  pollIntervalMs: number
  /** No new event (or not found) for this long: expired (EXPIRE_AFTER_DAYS). */
  expireAfterMs: number
  /** How long a claim holds a task; a crashed worker's tasks are due again after it. */
  leaseMs: number
  /** Tasks claimed per round. */
  claimLimit: number
  /** Backoff of a failed fetch: base, doubled per consecutive failure, capped. */
  retryBaseMs: number
  retryMaxMs: number
}

export interface CarrierChannel {
  adapter: CarrierAdapter
  budget: CarrierBudget
  /** This carrier's cadence, when not the options' (a simulated carrier is polled at its pace). */
  pollIntervalMs?: number
}

export interface RoundResult {
  claimed: number
  applied: number
  failed: number
}

/**
 * One refresh round: claim due tasks, group them per carrier into full requests, send each
 * request under the carrier's budget, and apply each answer in one short transaction.
 * No transaction is open while a carrier is being called.
 */
export interface RefreshHooks {
  now?: () => Date
  /** 0..1, for jitter. */
  random?: () => number
  /** Called after a status change was recorded in the outbox (wakes the webhook loop). */
  onNotification?: () => void
}

export class RefreshService {
  private readonly now: () => Date
  private readonly random: () => number
  private readonly onNotification: () => void

  constructor(
    private readonly repository: RefreshRepository,
    private readonly carriers: Map<string, CarrierChannel>,
    private readonly options: RefreshOptions,
    private readonly metrics: ServiceMetrics,
    hooks: RefreshHooks = {},
  ) {
    this.now = hooks.now ?? (() => new Date())
    this.random = hooks.random ?? Math.random
    this.onNotification = hooks.onNotification ?? (() => {})
  }

  async runRound(): Promise<RoundResult> {
    const paused = [...this.carriers].filter(([, channel]) => channel.budget.paused).map(([code]) => code)
    const claims = await this.repository.claimDue(this.options.claimLimit, this.options.leaseMs, paused)
    const result: RoundResult = { claimed: claims.length, applied: 0, failed: 0 }
    const requests: Promise<void>[] = []
    for (const [code, group] of groupBy(claims, (c) => c.carrierCode)) {
      const channel = this.carriers.get(code)
      if (!channel) {
        // A carrier this process cannot reach (no adapter): try again later.
        await this.fail(group, undefined)
        result.failed += group.length
        continue
      }
      for (let i = 0; i < group.length; i += channel.adapter.maxBatchSize) {
        requests.push(this.fetchAndApply(channel, group.slice(i, i + channel.adapter.maxBatchSize), result))
      }
    }
    await Promise.all(requests)
    return result
  }

  private async fetchAndApply(channel: CarrierChannel, tasks: ClaimedTask[], result: RoundResult): Promise<void> {
    const carrier = channel.adapter.code
    // Several tasks (of different users) can share a number: ask for it once.
    const numbers = [...new Set(tasks.map((t) => t.trackingNumber))]
    await channel.budget.acquire()
    const stopTimer = this.metrics.carrierFetchSeconds.startTimer({ carrier })
    let lookups: Map<string, CarrierLookup>
    try {
      lookups = await channel.adapter.fetch(numbers)
      this.metrics.carrierFetches.inc({ carrier, outcome: 'success' })
    } catch (error) {
      const failure = error instanceof CarrierError ? error : new CarrierError('bad_response', String(error))
      this.metrics.carrierFetches.inc({ carrier, outcome: failure.failure })
      this.metrics.trackingNumbersFetched.inc({ carrier, result: 'failed' }, tasks.length)
      if (failure.failure === 'rate_limited') channel.budget.pause(failure.retryAfterMs ?? 1000)
      await this.fail(tasks, failure.retryAfterMs)
      result.failed += tasks.length
      return
    } finally {
      stopTimer()
    }

    const missing: ClaimedTask[] = []
    const items: ApplyItem[] = []
    const now = this.now()
    for (const task of tasks) {
      const lookup = lookups.get(task.trackingNumber)
      if (!lookup) {
        missing.push(task)
        continue
      }
      this.metrics.trackingNumbersFetched.inc({ carrier, result: lookup.found ? 'found' : 'not_found' })
      const snapshot = lookup.found ? lookup.snapshot : undefined
      items.push({
        task,
        events: snapshot?.events ?? [],
        nextRefreshInMs: channel.pollIntervalMs ?? this.options.pollIntervalMs,
        decide: (state, newEventCount) => resolveUpdate(state, snapshot, { now, newEventCount, expireAfterMs: this.options.expireAfterMs }),
        deliveries: (change, endpoints) => deliveriesOfChange(change, endpoints, now),
      })
    }
    // The whole answer in one transaction: a handful of statements for up to 50 tasks.
    let notified = 0
    for (const outcome of await this.repository.apply(items)) {
      if (!outcome.applied) continue
      result.applied++
      notified += outcome.notified
    }
    if (notified > 0) {
      this.metrics.notificationsCreated.inc({ carrier }, notified)
      this.onNotification()
    }
    if (missing.length > 0) {
      // The carrier answered but said nothing about these numbers: like a failed fetch.
      this.metrics.trackingNumbersFetched.inc({ carrier, result: 'missing' }, missing.length)
      await this.fail(missing, undefined)
      result.failed += missing.length
    }
  }

  private fail(tasks: ClaimedTask[], retryAfterMs: number | undefined): Promise<void> {
    const policy = { baseMs: this.options.retryBaseMs, maxMs: this.options.retryMaxMs }
    return this.repository.releaseFailed(tasks.map((task) => ({ task, retryInMs: refreshRetryDelayMs(task.failures, policy, retryAfterMs ?? 0, this.random()) })))
  }
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const item of items) {
    const k = key(item)
    const group = groups.get(k)
    if (group) group.push(item)
    else groups.set(k, [item])
  }
  return groups
}
