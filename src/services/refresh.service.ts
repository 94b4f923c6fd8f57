import type { CarrierAdapter, CarrierLookup } from '../carriers/carrier'
import { CarrierError } from '../carriers/carrier'
import type { Database } from '../db/database'
import type { ClaimedTask, RefreshRepository } from '../db/refresh.repository'
import { CircuitBreaker, type CircuitView } from '../domain/circuit-breaker'
import { refreshRetryDelayMs } from '../domain/refresh-schedule'
import type { ServiceMetrics } from '../observability/metrics'
import type { CarrierBudget } from './carrier-budget'
import type { ApiPressure } from './api-pressure'
import type { CarrierLoad } from './carrier-load'
import type { FetchedTask, RefreshApply } from './refresh-apply'

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

/** The shortest wait a round asks for before the next: rounds of one carrier at most ten a second. */
const MIN_ROUND_GAP_MS = 100

/** The longest a round waits for a saturated API beside it before it claims one request's worth. */
const API_FIRST_WAIT_MS = 1000

export interface CarrierChannel {
  adapter: CarrierAdapter
  budget: CarrierBudget
  /** Pauses the carrier as a whole while its requests keep failing; a closed one when absent. */
  circuit?: CircuitBreaker
  /** This carrier's cadence, when not the options' (a simulated carrier is polled at its pace). */
  pollIntervalMs?: number
  /** A route's channel: the carrier codes whose tasks it fetches (a carrier's channel fetches its own). */
  serves?: readonly string[]
  /** A route's channel: what its adapter is asked for a task (the aggregator's record), not the bare number. */
  recordOf?: (task: Pick<ClaimedTask, 'carrierCode' | 'trackingNumber'>) => string
}

/** The carriers a channel fetches: a route's, or the carrier's own. */
const codesOf = (channelCode: string, channel: CarrierChannel): readonly string[] => channel.serves ?? [channelCode]

/** What a refresh round works with: the schedule's storage, the apply, the carriers' load. */
export interface RefreshParts {
  repository: RefreshRepository
  applier: RefreshApply
  load: CarrierLoad
}

export interface RoundResult {
  claimed: number
  /** The round claimed all it asked for: more may be due now. */
  more: boolean
  applied: number
  failed: number
  /** Claimed, but not asked for: the carrier's circuit opened first (due again when the lease lapses). */
  skipped: number
  /** Nothing more is due now, but a full request of the carrier will be in this many ms. */
  wakeInMs?: number
}

export interface RefreshHooks {
  now?: () => Date
  /** 0..1, for jitter. */
  random?: () => number
  /** Called after a status change was recorded in the outbox (wakes the webhook loop). */
  onNotification?: () => void
  /** The API served by the same process (ROLE=all): a round yields to it while it is saturated. */
  pressure?: Pick<ApiPressure, 'yieldTo'>
  /** Carriers that push, by code: a task whose number they push is fetched only to reconcile. */
  reconcile?: ReadonlyMap<string, Reconcile>
}

/** A pushing carrier's reconciliation: how often, and which numbers it pushes now. */
export interface Reconcile {
  intervalMs: number
  subscribed(trackingNumbers: readonly string[]): Promise<Set<string>>
  /** Moves the next poll of these subscribed numbers' tasks to the reconciliation's pace (push-subscription.repository.ts, deferPolls). */
  defer(trackingNumbers: readonly string[]): Promise<void>
}

/**
 * One refresh round of one carrier (each carrier has its own loop, so a slow or failing carrier
 * never delays another): unless its circuit is open, claim its due tasks, split them into full
 * requests, send each under the carrier's budget, and apply each answer in one short transaction.
 * A half-open circuit claims one request's worth, the probe. No transaction is open while a
 * carrier is being called.
 */
export class RefreshService {
  private readonly now: () => Date
  private readonly random: () => number
  private readonly onNotification: () => void
  private readonly pressure: Pick<ApiPressure, 'yieldTo'> | undefined
  private readonly reconcile: ReadonlyMap<string, Reconcile>
  private readonly circuitOf: Map<string, CircuitBreaker>
  private readonly repository: RefreshRepository
  private readonly applier: RefreshApply
  private readonly load: CarrierLoad

  constructor(
    private readonly db: Database,
    parts: RefreshParts,
    private readonly carriers: Map<string, CarrierChannel>,
    private readonly options: RefreshOptions,
    private readonly metrics: ServiceMetrics,
    hooks: RefreshHooks = {},
  ) {
    this.now = hooks.now ?? (() => new Date())
    this.random = hooks.random ?? Math.random
    this.onNotification = hooks.onNotification ?? (() => {})
    this.pressure = hooks.pressure
    this.reconcile = hooks.reconcile ?? new Map()
    this.repository = parts.repository
    this.applier = parts.applier
    this.load = parts.load
    // A channel given no circuit gets one that never opens.
    this.circuitOf = new Map(
      [...carriers].map(([code, channel]) => [code, channel.circuit ?? new CircuitBreaker({ failureThreshold: Infinity, baseOpenMs: 0, maxOpenMs: 0 })]),
    )
  }

  /** A round of one carrier; without one, a round of every carrier side by side (tests, tools). */
  async runRound(carrierCode?: string): Promise<RoundResult> {
    if (carrierCode === undefined) {
      const results = await Promise.all([...this.carriers.keys()].map((code) => this.runRound(code)))
      const wakes = results.flatMap((r) => (r.wakeInMs === undefined ? [] : [r.wakeInMs]))
      return {
        claimed: results.reduce((sum, r) => sum + r.claimed, 0),
        more: results.some((r) => r.more),
        applied: results.reduce((sum, r) => sum + r.applied, 0),
        failed: results.reduce((sum, r) => sum + r.failed, 0),
        skipped: results.reduce((sum, r) => sum + r.skipped, 0),
        ...(wakes.length > 0 ? { wakeInMs: Math.min(...wakes) } : {}),
      }
    }
    const result: RoundResult = { claimed: 0, more: false, applied: 0, failed: 0, skipped: 0 }
    const channel = this.carriers.get(carrierCode)
    if (!channel || channel.budget.paused) return result
    // API first: while the API beside it is saturated, a round waits for it to calm down, a
    // second at most, and then claims one request's worth. At full speed beside a saturated API
    // the refresh's transactions held pool connections while the event loop served requests, and
    // the subscribes waited for connections; what waits is fetched at full speed once it calms down.
    const yielding = this.pressure ? await this.pressure.yieldTo(API_FIRST_WAIT_MS) : false
    if (yielding) this.metrics.refreshRoundsYielded.inc({ carrier: carrierCode })
    const circuit = this.circuitOf.get(carrierCode)!
    const allowed = circuit.allowedRequests(this.now().getTime())
    this.metrics.carrierCircuitOpen.set({ carrier: carrierCode }, allowed === 0 ? 1 : 0)
    if (allowed === 0) return result
    const probe = allowed !== Infinity
    // Taken before claiming, so that a concurrent round does not probe too; given back if there is nothing to ask.
    if (probe) circuit.startProbe()
    // No more than the budget lets through in a third of the lease (ten seconds at most), so that
    // the round's last request is sent, answered and applied while the claim still holds its
    // tasks: with a 3 s lease, ten seconds' worth of a 10/s carrier applied the first thirty and
    // lost the other seventy to the lapsed lease, round after round. Nothing while the budget lets
    // none through (a budget of 60 an hour: one request a minute).
    const affordable = channel.budget.requestsWithin(Math.min(10_000, this.options.leaseMs / 3))
    if (!probe && affordable === 0) return { ...result, wakeInMs: Math.max(channel.budget.msUntilNext(), MIN_ROUND_GAP_MS) }
    const limit = probe || yielding ? channel.adapter.maxBatchSize : Math.min(this.options.claimLimit, affordable * channel.adapter.maxBatchSize)
    const nextRefreshInMs = await this.intervalOf(carrierCode, channel)
    const claims = await this.db
      .transaction((tx) => this.repository.claimDue(tx, carrierCode, codesOf(carrierCode, channel), limit, this.options.leaseMs))
      .catch((error: unknown) => {
        if (probe) circuit.cancelProbe()
        throw error
      })
    if (probe && claims.length === 0) circuit.cancelProbe()
    const { nextRefreshOf, pushed } = await this.nextRefreshOf(carrierCode, claims, nextRefreshInMs)
    result.claimed = claims.length
    result.more = claims.length === limit
    const requests: Promise<void>[] = []
    const unasked: number[] = []
    for (let i = 0; i < claims.length; i += channel.adapter.maxBatchSize) {
      requests.push(this.fetchAndApply(carrierCode, channel, claims.slice(i, i + channel.adapter.maxBatchSize), result, probe, unasked, nextRefreshOf))
    }
    // Every request of the round settles before the round ends, a failed one too: a round that
    // ended at its first failure left its other requests queued on the carrier's budget, and the
    // next round's requests waited behind them past their lease (one-number carriers under
    // database restarts fetched and applied nothing for minutes).
    const failure = (await Promise.allSettled(requests)).find((r): r is PromiseRejectedResult => r.status === 'rejected')
    if (failure) throw failure.reason
    if (claims.length > 0) await this.repository.releaseClaim(claims[0]!.leaseToken, unasked)
    await this.deferSubscribedMeanwhile(carrierCode, claims, pushed)
    // The loop polls once a second; a full request that falls due between two ticks is sent when
    // it does, so a steady stream of changes reaches the webhooks a few at a time rather than a
    // second's worth at once. Only full requests: the carrier is asked no more often than before.
    if (!result.more && !probe) {
      const dueInMs = await this.repository.dueInMs(carrierCode, codesOf(carrierCode, channel), channel.adapter.maxBatchSize)
      if (dueInMs !== null) result.wakeInMs = Math.max(dueInMs, MIN_ROUND_GAP_MS)
    }
    return result
  }

  /**
   * How long until a task fetched now is fetched again: the carrier's poll interval, longer when
   * its budget cannot pay for fetching all its active tasks that often. Read before the claim; the
   * count behind it is advice, so a failed count leaves the poll interval.
   */
  private async intervalOf(carrierCode: string, channel: CarrierChannel): Promise<number> {
    const pollMs = channel.pollIntervalMs ?? this.options.pollIntervalMs
    return this.load.intervalMs(codesOf(carrierCode, channel), pollMs, channel.budget.ratePerSecond, channel.adapter.maxBatchSize).catch(() => pollMs)
  }

  /**
   * When each claimed task is due again: the interval, or for a number its carrier pushes now,
   * the reconciliation's (pushes bring its news; a fetch checks them). A failed look leaves the interval.
   */
  private async nextRefreshOf(
    carrierCode: string,
    claims: ClaimedTask[],
    intervalMs: number,
  ): Promise<{ nextRefreshOf: (task: ClaimedTask) => number; pushed: Set<string> }> {
    const reconcile = this.reconcile.get(carrierCode)
    if (!reconcile || claims.length === 0) return { nextRefreshOf: () => intervalMs, pushed: new Set() }
    const pushed = await reconcile.subscribed(claims.map((c) => c.trackingNumber)).catch(() => new Set<string>())
    return { nextRefreshOf: (task) => (pushed.has(task.trackingNumber) ? Math.max(reconcile.intervalMs, intervalMs) : intervalMs), pushed }
  }

  /**
   * A number subscribed while the round held its task (a new task's first poll and its
   * subscription start together) could not have its next poll moved then (a claim owns its due
   * time) and was given the poll's pace: moved now, once the claim is released.
   */
  private async deferSubscribedMeanwhile(carrierCode: string, claims: ClaimedTask[], pushed: Set<string>): Promise<void> {
    const reconcile = this.reconcile.get(carrierCode)
    const unsubscribed = [...new Set(claims.map((c) => c.trackingNumber).filter((n) => !pushed.has(n)))]
    if (!reconcile || unsubscribed.length === 0) return
    // Advice, as the look before the claim: a failure leaves the poll's pace.
    await reconcile
      .subscribed(unsubscribed)
      .then((since) => (since.size > 0 ? reconcile.defer([...since]) : undefined))
      .catch(() => {})
  }

  /** Each carrier's circuit as /readyz shows it. */
  circuits(): Record<string, CircuitView> {
    const now = this.now().getTime()
    return Object.fromEntries([...this.carriers].map(([code]) => [code, this.circuitOf.get(code)!.view(now)]))
  }

  private async fetchAndApply(
    carrier: string,
    channel: CarrierChannel,
    tasks: ClaimedTask[],
    result: RoundResult,
    probe: boolean,
    unasked: number[],
    nextRefreshOf: (task: ClaimedTask) => number,
  ): Promise<void> {
    const circuit = this.circuitOf.get(carrier)!
    // Several tasks (of different users) can share a number: ask for it once.
    const askedFor = channel.recordOf ?? ((task: ClaimedTask) => task.trackingNumber)
    const numbers = [...new Set(tasks.map(askedFor))]
    await channel.budget.acquire()
    // The circuit opened while this request waited for the budget: the carrier is not asked, and
    // the tasks are not written. They stay claimed until the lease lapses, so an
    // outage that starts mid-round costs the requests already out, not the whole round's.
    if (!probe && circuit.state(this.now().getTime()) !== 'closed') {
      result.skipped += tasks.length
      unasked.push(...tasks.map((task) => task.id))
      return
    }
    const stopTimer = this.metrics.carrierFetchSeconds.startTimer({ carrier })
    let lookups: Map<string, CarrierLookup>
    try {
      lookups = await channel.adapter.fetch(numbers)
      this.metrics.carrierFetches.inc({ carrier, outcome: 'success' })
      circuit.succeeded()
    } catch (error) {
      const failure = error instanceof CarrierError ? error : new CarrierError('bad_response', String(error))
      this.metrics.carrierFetches.inc({ carrier, outcome: failure.failure })
      this.metrics.trackingNumbersFetched.inc({ carrier, result: 'failed' }, tasks.length)
      // A 429 is the carrier answering: its budget pauses, its circuit does not open.
      if (failure.failure === 'rate_limited') {
        circuit.succeeded()
        channel.budget.pause(failure.retryAfterMs ?? 1000)
      } else circuit.failed(this.now().getTime(), failure.message, failure.failure === 'unauthorized')
      await this.fail(tasks, failure.retryAfterMs)
      result.failed += tasks.length
      return
    } finally {
      stopTimer()
    }

    const missing: ClaimedTask[] = []
    const items: FetchedTask[] = []
    const fetchedAt = this.now()
    for (const task of tasks) {
      const lookup = lookups.get(askedFor(task))
      if (!lookup) {
        missing.push(task)
        continue
      }
      this.metrics.trackingNumbersFetched.inc({ carrier, result: lookup.found ? 'found' : 'not_found' })
      items.push({
        task,
        snapshot: lookup.found ? lookup.snapshot : undefined,
        fetchedAt,
        nextRefreshInMs: nextRefreshOf(task),
      })
    }
    // The whole answer in one transaction: a handful of statements for up to 50 tasks.
    let notified = 0
    for (const outcome of await this.applier.apply(items)) {
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
    return this.repository.releaseFailed(
      tasks.map((task) => ({ task, retryInMs: refreshRetryDelayMs(task.failures, policy, retryAfterMs ?? 0, this.random()) })),
    )
  }
}
