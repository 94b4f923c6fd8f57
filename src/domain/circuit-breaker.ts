/**
 * A carrier's circuit breaker: when its requests keep failing as a whole (refused, timeouts, 5xx,
 * garbage, refused credentials), the carrier is paused, so that an outage costs no claims and no
 * rewritten rows. A number the carrier does not know is an answer, never a failure here.
 *
 *   closed     requests flow; `failureThreshold` failures in a row open the circuit
 *   open       no request, no claim, until `openUntil`; each opening waits twice as long as the
 *              one before (from `baseOpenMs` to `maxOpenMs`)
 *   half_open  one probe request at a time; its success closes the circuit, its failure opens
 *              it again for longer
 *
 * Pure: the clock comes in as `now` (ms) on every call.
 */

export type CircuitState = 'closed' | 'open' | 'half_open'

export interface CircuitPolicy {
  failureThreshold: number
  baseOpenMs: number
  maxOpenMs: number
  /**
   * The same for refused credentials, which no retry mends until an operator changes them (and
   * starts the service again): held for minutes, since a carrier counts every refused call, token
   * calls included, against a quota as small as USPS's 60 an hour. Default: baseOpenMs/maxOpenMs.
   */
  refusedOpenMs?: number
  refusedMaxOpenMs?: number
}

/**
 * Open at most 30 s at a time: a carrier that is back is found within half a minute. Refused
 * credentials: two minutes, doubling to half an hour (at most three calls in the first 90 s,
 * whatever was in flight; docs/carriers.md).
 */
export const DEFAULT_CIRCUIT_POLICY: CircuitPolicy = {
  failureThreshold: 5,
  baseOpenMs: 2_000,
  maxOpenMs: 30_000,
  refusedOpenMs: 120_000,
  refusedMaxOpenMs: 1_800_000,
}

export interface CircuitView {
  state: CircuitState
  /** Failures in a row. */
  failures: number
  /** When an open circuit lets a probe through (ISO); null when not open. */
  retryAt: string | null
  lastError: string | null
}

export class CircuitBreaker {
  private failures = 0
  private openings = 0
  private openUntil = 0
  private probing = false
  private lastError: string | null = null

  constructor(private readonly policy: CircuitPolicy = DEFAULT_CIRCUIT_POLICY) {}

  state(now: number): CircuitState {
    if (this.openings === 0) return 'closed'
    return now < this.openUntil ? 'open' : 'half_open'
  }

  /**
   * How many requests may start now: unlimited when closed, none when open or while a probe is
   * out, one (the probe) when half open. A caller that starts the probe calls `startProbe`.
   */
  allowedRequests(now: number): number {
    const state = this.state(now)
    if (state === 'closed') return Infinity
    return state === 'half_open' && !this.probing ? 1 : 0
  }

  startProbe(): void {
    this.probing = true
  }

  /** The probe found nothing to ask: the next round may probe. */
  cancelProbe(): void {
    this.probing = false
  }

  succeeded(): void {
    this.failures = 0
    this.openings = 0
    this.probing = false
    this.lastError = null
  }

  /**
   * `refused`: credentials the carrier refused, which retrying does not mend: the circuit opens
   * without waiting for the threshold, and for the refused schedule's longer wait.
   */
  failed(now: number, error: string, refused = false): void {
    this.failures++
    this.lastError = error
    const wasProbe = this.probing
    this.probing = false
    if (wasProbe || (this.openings === 0 && (refused || this.failures >= this.policy.failureThreshold))) {
      this.openings++
      const base = refused ? (this.policy.refusedOpenMs ?? this.policy.baseOpenMs) : this.policy.baseOpenMs
      const max = refused ? (this.policy.refusedMaxOpenMs ?? this.policy.maxOpenMs) : this.policy.maxOpenMs
      this.openUntil = now + Math.min(base * 2 ** (this.openings - 1), max)
    } else if (refused && this.state(now) === 'open') {
      // A refusal from a request that was in flight when the circuit opened: held as long.
      this.openUntil = Math.max(this.openUntil, now + (this.policy.refusedOpenMs ?? this.policy.baseOpenMs))
    }
  }

  view(now: number): CircuitView {
    const state = this.state(now)
    return { state, failures: this.failures, retryAt: state === 'open' ? new Date(this.openUntil).toISOString() : null, lastError: this.lastError }
  }
}
