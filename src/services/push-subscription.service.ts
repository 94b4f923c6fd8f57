import { CarrierError } from '../carriers/carrier'
import type { CarrierPushes, PushSubscriber } from '../carriers/carrier-push'
import type { PushSubscriptionRepository, SubscriptionResult } from '../db/push-subscription.repository'
import type { RouteRegistrationRepository } from '../db/route-registration.repository'
import type { CircuitBreaker } from '../domain/circuit-breaker'
import { TaskWindows } from './task-window'

/** How long a claim holds its numbers while the carrier is called (more than a request's timeout). */
const CLAIM_LEASE_MS = 120_000
/** A failed call (the carrier down) is asked again after this long. */
const FAILED_RETRY_MS = 60_000
/** A subscription is renewed this long before it ends (UPS: on its 13th day of 14). */
const RENEW_WITHIN_MS = 86_400_000
/**
 * Between sweeps a round looks at the tasks created since the last (task-window.ts); a sweep, this
 * often, finds the tasks that became the carrier's or active again, and forgets what ended.
 */
const SWEEP_EVERY_MS = 600_000

export interface PushSubscriptionRunner {
  carrierCode: string
  pushes: CarrierPushes
  subscriber: PushSubscriber
  /**
   * The subscriptions' own circuit, not the carrier's: while subscribing fails (the push service
   * not enabled for the credentials, say), its numbers are polled as before.
   */
  circuit: CircuitBreaker
  /** A subscribed task is fetched this often: its poll already due later is moved there. */
  reconcileMs: number
}

export interface SubscriptionRound {
  subscribed: number
  refused: number
  /** A full claim was made: more may be waiting. */
  more: boolean
}

/**
 * Keeps a pushing carrier's subscriptions in step with its tasks (docs/carriers.md, "UPS Track
 * Alert"): the number of an active task is subscribed (in groups of the carrier's size) and
 * subscribed again before its subscription's life ends, for as long as a task of it is active; a
 * number the carrier refuses is never asked again (its tasks are polled as before). No
 * transaction is open while the carrier is called: numbers are claimed under a lease, then settled.
 */
export class PushSubscriptionService {
  private readonly windows: TaskWindows

  constructor(
    private readonly repository: PushSubscriptionRepository,
    private readonly links: Pick<RouteRegistrationRepository, 'linkTasks' | 'unlinkGone' | 'newestTaskId'>,
    private readonly runners: readonly PushSubscriptionRunner[],
    private readonly now: () => number = Date.now,
    private readonly counted: (carrier: string, outcome: string) => void = () => {},
  ) {
    this.windows = new TaskWindows(SWEEP_EVERY_MS, now)
  }

  async runRound(): Promise<SubscriptionRound> {
    const round: SubscriptionRound = { subscribed: 0, refused: 0, more: false }
    for (const runner of this.runners) await this.runCarrier(runner, round)
    return round
  }

  private async runCarrier(runner: PushSubscriptionRunner, round: SubscriptionRound): Promise<void> {
    if (runner.circuit.allowedRequests(this.now()) === 0) return
    const batch = runner.pushes.numbersPerRequest
    const window = this.windows.open(runner.carrierCode, await this.links.newestTaskId())
    await this.links.linkTasks([runner.carrierCode], window.afterTaskId)
    const numbers = await this.repository.claim(runner.carrierCode, batch, RENEW_WITHIN_MS, CLAIM_LEASE_MS, window.afterTaskId)
    if (numbers.length > 0) await this.subscribe(runner, numbers, round)
    // More are waiting: the next round looks from the same point.
    round.more ||= numbers.length === batch
    window.close(numbers.length === batch)
    if (window.sweep && numbers.length < batch) {
      await this.repository.prune(runner.carrierCode)
      await this.links.unlinkGone()
    }
  }

  private async subscribe(runner: PushSubscriptionRunner, numbers: string[], round: SubscriptionRound): Promise<void> {
    let results: SubscriptionResult[]
    try {
      const outcomes = await runner.subscriber.subscribe(numbers)
      this.counted(runner.carrierCode, 'success')
      runner.circuit.succeeded()
      results = numbers.map((trackingNumber) => {
        const outcome = outcomes.get(trackingNumber)
        if (!outcome) return { trackingNumber, retryInMs: FAILED_RETRY_MS }
        if (outcome.subscribed) {
          round.subscribed++
          return { trackingNumber, subscribedForMs: runner.pushes.lifetimeMs }
        }
        round.refused++
        return { trackingNumber, refusal: `${outcome.code}: ${outcome.message}` }
      })
    } catch (error) {
      const failure = error instanceof CarrierError ? error : new CarrierError('bad_response', String(error))
      this.counted(runner.carrierCode, failure.failure)
      if (failure.failure !== 'rate_limited') runner.circuit.failed(this.now(), `${runner.pushes.name}: ${failure.message}`, failure.failure === 'unauthorized')
      results = numbers.map((trackingNumber) => ({ trackingNumber, retryInMs: failure.retryAfterMs ?? FAILED_RETRY_MS }))
    }
    await this.repository.settle(runner.carrierCode, results)
    // A task polled just before (its backfill) is not polled again at the poll's pace: its next poll is the reconciliation's.
    const subscribed = results.filter((r) => 'subscribedForMs' in r).map((r) => r.trackingNumber)
    if (subscribed.length > 0) await this.repository.deferPolls(runner.carrierCode, subscribed, runner.reconcileMs)
  }
}
