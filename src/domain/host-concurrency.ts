/**
 * How many webhook attempts one receiving host gets at once: a limit that adapts to how the host
 * answers (additive increase, multiplicative decrease, as TCP does with its window).
 *
 *   slow start   from `initial`, +1 for every quick 2xx (the limit doubles per round of answers)
 *                until the first sign of trouble;
 *   steady       +1 per `limit` quick 2xx answers (one more per round of answers);
 *   backing off  on a timeout, a connection failure, a 5xx, a 429, or an answer much slower than
 *                the host's usual: the limit halves (at most once per round of answers, so that
 *                the answers of one overloaded round count once), never below 1;
 *   paused       a 429 with Retry-After (or a 503 with one) pauses the host until then: nothing is
 *                sent to it meanwhile.
 *
 * Never above `max`. Pure: the caller passes the clock.
 */

export interface HostLimitOptions {
  initial: number
  max: number
}

export type AnswerKind = 'ok' | 'overloaded' | 'other'

export interface Answer {
  /** 2xx: ok; timeout, connection failure, 5xx, 429: overloaded; any other status: other. */
  kind: AnswerKind
  durationMs: number
  /** A 429's or 503's Retry-After, when it gave one. */
  retryAfterMs?: number
}

/** An answer slower than this many times the host's usual one counts as a sign of overload. */
const SLOW_FACTOR = 4
/** …but never below this: a host that usually answers in 1 ms may take 10 without trouble. */
const SLOW_FLOOR_MS = 250

export class HostLimit {
  limit: number
  private slowStart = true
  private gains = 0
  /** Answers to wait for after a decrease before the next one counts (one round). */
  private holdOff = 0
  /** An exponentially weighted average of the durations of quick 2xx answers. */
  private usualMs: number | undefined
  pausedUntil = 0

  constructor(private readonly options: HostLimitOptions) {
    this.limit = Math.min(options.initial, options.max)
  }

  /** Whether the host may be sent to now. */
  open(now: number): boolean {
    return now >= this.pausedUntil
  }

  record(answer: Answer, now: number): void {
    if (answer.retryAfterMs !== undefined && answer.kind === 'overloaded') this.pausedUntil = Math.max(this.pausedUntil, now + answer.retryAfterMs)
    const slow = this.usualMs !== undefined && answer.durationMs > Math.max(SLOW_FLOOR_MS, this.usualMs * SLOW_FACTOR)
    if (this.holdOff > 0) this.holdOff--
    if (answer.kind === 'overloaded' || (answer.kind === 'ok' && slow)) {
      if (this.holdOff === 0) {
        this.limit = Math.max(1, Math.floor(this.limit / 2))
        this.slowStart = false
        this.gains = 0
        this.holdOff = this.limit
      }
      return
    }
    if (answer.kind !== 'ok') return
    this.usualMs = this.usualMs === undefined ? answer.durationMs : this.usualMs * 0.9 + answer.durationMs * 0.1
    if (this.slowStart) {
      this.limit = Math.min(this.options.max, this.limit + 1)
      return
    }
    if (++this.gains >= this.limit) {
      this.gains = 0
      this.limit = Math.min(this.options.max, this.limit + 1)
    }
  }
}

/** What an attempt's outcome says about the host's load. */
export function answerKind(statusCode: number): AnswerKind {
  if (statusCode >= 200 && statusCode < 300) return 'ok'
  if (statusCode === 0 || statusCode === 429 || statusCode >= 500) return 'overloaded'
  return 'other'
}
