import { CarrierError } from '../carriers/carrier'
import type { CarrierRoute, RegistrationOutcome, RouteClient } from '../carriers/carrier-route'
import type { RegistrationClaim, RegistrationResult, RouteRegistrationRepository } from '../db/route-registration.repository'
import type { CircuitBreaker } from '../domain/circuit-breaker'
import { TaskWindows } from './task-window'

/** How long a claim holds its numbers while the aggregator is called (more than a request's timeout). */
const CLAIM_LEASE_MS = 120_000
/** A failed call (the aggregator down) is asked again after this long. */
const FAILED_RETRY_MS = 60_000
/** The key's quota ran out: its numbers are asked again after this long (17TRACK refills daily or monthly). */
const QUOTA_RETRY_MS = 3_600_000
/**
 * Between sweeps a round registers the numbers of the tasks created since the last
 * (task-window.ts); a sweep, this often, finds the tasks that changed carrier or became active
 * again, and stops the numbers whose tasks all ended (a stopped number's pushes are answered and
 * counted meanwhile, and cost nothing).
 */
export const REGISTRATION_SWEEP_MS = 60_000

export interface RouteRegistrationRunner {
  route: CarrierRoute
  client: RouteClient
  circuit: CircuitBreaker
}

export interface RegistrationRound {
  registered: number
  refused: number
  stopped: number
  /** A full claim was made: more may be waiting. */
  more: boolean
}

/**
 * Keeps each route's registrations in step with its tasks (docs/carriers.md, "Carriers through
 * 17TRACK"): a number with an active task is registered once (it costs the key's quota; a stopped
 * one is restarted, which is free), and stopped there when none of its tasks is active any more
 * (stopped, finished, deleted). A number whose tasks moved to another of the route's carriers is
 * moved there (free) rather than registered again. No transaction is open while the
 * aggregator is called: numbers are claimed under a lease, then settled.
 */
export class RouteRegistrationService {
  private readonly windows: TaskWindows

  constructor(
    private readonly repository: RouteRegistrationRepository,
    private readonly routes: readonly RouteRegistrationRunner[],
    private readonly now: () => number = Date.now,
  ) {
    this.windows = new TaskWindows(REGISTRATION_SWEEP_MS, now)
  }

  async runRound(): Promise<RegistrationRound> {
    const round: RegistrationRound = { registered: 0, refused: 0, stopped: 0, more: false }
    for (const runner of this.routes) await this.runRoute(runner, round)
    return round
  }

  private async runRoute(runner: RouteRegistrationRunner, round: RegistrationRound): Promise<void> {
    // An open circuit (a refused key, the quota spent) asks nothing until it lets a probe through.
    if (runner.circuit.allowedRequests(this.now()) === 0) return
    const codes = runner.route.carriers.map((c) => c.code)
    const batch = runner.route.numbersPerRequest
    const window = this.windows.open(runner.route.code, await this.repository.newestTaskId())
    await this.repository.linkTasks(codes, window.afterTaskId)
    const claims = await this.repository.claimRegistrations(codes, batch, CLAIM_LEASE_MS, window.afterTaskId)
    const moved = claims.filter((c) => !c.restart && c.movedFrom)
    const refusedMoves = moved.length > 0 ? await this.move(runner, moved, round) : []
    const fresh = [...claims.filter((c) => !c.restart && !c.movedFrom), ...refusedMoves]
    const stopped = claims.filter((c) => c.restart)
    if (fresh.length > 0) await this.start(runner, fresh, (records) => runner.client.register(records), round)
    if (stopped.length > 0) await this.start(runner, stopped, (records) => runner.client.restart(records), round)
    // Stops read every registration: a sweep's work.
    const stops = window.sweep ? await this.repository.claimStops(codes, batch, CLAIM_LEASE_MS) : []
    if (stops.length > 0) await this.stop(runner, stops, round)
    const more = claims.length === batch || stops.length === batch
    round.more ||= more
    window.close(more)
    if (window.sweep && !more) await this.repository.unlinkGone()
  }

  private async start(
    runner: RouteRegistrationRunner,
    claims: RegistrationClaim[],
    call: (records: string[]) => Promise<Map<string, RegistrationOutcome>>,
    round: RegistrationRound,
  ): Promise<void> {
    const recordOf = (c: RegistrationClaim) => runner.route.recordOf(c.carrierCode, c.trackingNumber)
    let outcomes: Map<string, RegistrationOutcome>
    try {
      outcomes = await call(claims.map(recordOf))
      runner.circuit.succeeded()
    } catch (error) {
      await this.failed(runner, claims, error)
      return
    }
    const results: RegistrationResult[] = []
    let quota: string | undefined
    for (const claim of claims) {
      const outcome = outcomes.get(recordOf(claim))
      const at = { carrierCode: claim.carrierCode, trackingNumber: claim.trackingNumber }
      if (!outcome) results.push({ ...at, retryInMs: FAILED_RETRY_MS })
      else if (outcome.registered) {
        round.registered++
        results.push({ ...at, state: 'registered' })
      } else if (outcome.quota) {
        quota = `${outcome.code}: ${outcome.message}`
        results.push({ ...at, retryInMs: QUOTA_RETRY_MS })
      } else {
        round.refused++
        results.push({ ...at, state: 'refused', refusal: `${outcome.code}: ${outcome.message}` })
      }
    }
    await this.repository.settle(results)
    if (quota) {
      runner.circuit.failed(
        this.now(),
        `${runner.route.name} has no registrations left on this key (${quota}): new numbers wait until the quota is refilled or more is bought in the ${runner.route.name} dashboard; numbers already registered are still read`,
        true,
      )
    }
  }

  /**
   * Moves the records of numbers whose tasks changed carrier (free at 17TRACK, five times a
   * number); the claims it could not move are returned, to be registered instead.
   */
  private async move(runner: RouteRegistrationRunner, claims: RegistrationClaim[], round: RegistrationRound): Promise<RegistrationClaim[]> {
    const recordOf = (code: string, number: string) => runner.route.recordOf(code, number)
    let outcomes: Map<string, RegistrationOutcome>
    try {
      outcomes = await runner.client.move(
        claims.map((c) => ({ from: recordOf(c.movedFrom!, c.trackingNumber), to: recordOf(c.carrierCode, c.trackingNumber) })),
      )
    } catch (error) {
      await this.failed(runner, claims, error)
      return []
    }
    const moved = claims.filter((c) => outcomes.get(recordOf(c.carrierCode, c.trackingNumber))?.registered)
    round.registered += moved.length
    await this.repository.settle(moved.map((c) => ({ carrierCode: c.carrierCode, trackingNumber: c.trackingNumber, state: 'registered' as const })))
    await this.repository.forget(moved.map((c) => ({ carrierCode: c.movedFrom!, trackingNumber: c.trackingNumber })))
    return claims.filter((c) => !moved.includes(c))
  }

  private async stop(runner: RouteRegistrationRunner, claims: RegistrationClaim[], round: RegistrationRound): Promise<void> {
    const recordOf = (c: RegistrationClaim) => runner.route.recordOf(c.carrierCode, c.trackingNumber)
    let stopped: Set<string>
    try {
      stopped = await runner.client.stop(claims.map(recordOf))
    } catch (error) {
      await this.failed(runner, claims, error)
      return
    }
    round.stopped += stopped.size
    await this.repository.settle(
      claims.map((c) =>
        stopped.has(recordOf(c))
          ? { carrierCode: c.carrierCode, trackingNumber: c.trackingNumber, state: 'stopped' as const }
          : { carrierCode: c.carrierCode, trackingNumber: c.trackingNumber, retryInMs: FAILED_RETRY_MS },
      ),
    )
  }

  /** The call failed as a whole: its numbers are asked again later; a refused key opens the route's circuit. */
  private async failed(runner: RouteRegistrationRunner, claims: RegistrationClaim[], error: unknown): Promise<void> {
    const failure = error instanceof CarrierError ? error : new CarrierError('bad_response', String(error))
    if (failure.failure !== 'rate_limited') runner.circuit.failed(this.now(), failure.message, failure.failure === 'unauthorized')
    await this.repository.settle(
      claims.map((c) => ({ carrierCode: c.carrierCode, trackingNumber: c.trackingNumber, retryInMs: failure.retryAfterMs ?? FAILED_RETRY_MS })),
    )
  }
}
