import { HostLimit, type Answer } from '../domain/host-concurrency'

/**
 * The per-host gate of one process's webhook attempts: how many attempts each receiving host gets
 * at once (its adaptive limit, domain/host-concurrency.ts: AIMD on its answers, paused by a
 * Retry-After), who waits for room at a host, and how much of each host's room the deliveries
 * claimed but not yet sent already take, so that a claim asks for no more than fits.
 *
 *   claimed   a delivery of the host's is claimed: it takes room until `unclaimed`
 *   inside    an attempt is sending to the host (`enter` let it in): until `leave`
 *   waiting   `enter` found the host full: it waits until a `leave` makes room, the host is paused
 *             (answered with the pause's end), or its deadline passes (answered with a second later)
 */

export interface HostView {
  host: string
  limit: number
  sending: number
  pausedUntil: Date | null
}

export interface HostGateOptions {
  /** Where each host's limit starts. */
  initial: number
  /** The most attempts a host may get at once. */
  max: number
  /** Past this many hosts, idle ones are forgotten (they start afresh). */
  kept: number
}

export class HostGate {
  private readonly limits = new Map<string, HostLimit>()
  private readonly claimedPerHost = new Map<string, number>()
  private readonly inside = new Map<string, number>()
  private readonly waiters = new Map<string, (() => void)[]>()

  constructor(private readonly options: HostGateOptions) {}

  /** What a claim may take for each host this process knows: its room left; a paused host none. */
  room(now: number): Map<string, number> {
    const room = new Map<string, number>()
    for (const [host, limit] of this.limits) room.set(host, limit.open(now) ? limit.limit - (this.claimedPerHost.get(host) ?? 0) : 0)
    for (const [host, claimed] of this.claimedPerHost) if (!this.limits.has(host)) room.set(host, this.options.initial - claimed)
    return room
  }

  claimed(host: string): void {
    adjust(this.claimedPerHost, host, +1)
  }

  unclaimed(host: string): void {
    adjust(this.claimedPerHost, host, -1)
  }

  /**
   * Waits for room at the host: true once inside (call `leave` after), or when to give the
   * delivery back instead (the host is paused, or no room came before `deadline`).
   */
  async enter(host: string, deadline: number, now: () => number): Promise<true | Date> {
    const limit = this.limitOf(host)
    for (;;) {
      const at = now()
      if (!limit.open(at)) return new Date(limit.pausedUntil)
      if ((this.inside.get(host) ?? 0) < limit.limit) break
      if (at >= deadline) return new Date(at + 1000)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - at))
        this.waiters.set(host, [
          ...(this.waiters.get(host) ?? []),
          () => {
            clearTimeout(timer)
            resolve()
          },
        ])
      })
    }
    adjust(this.inside, host, +1)
    return true
  }

  leave(host: string): void {
    adjust(this.inside, host, -1)
    // Everyone waiting looks again: the limit may have grown (or the host been paused) meanwhile.
    const waiting = this.waiters.get(host) ?? []
    this.waiters.delete(host)
    for (const wake of waiting) wake()
  }

  /** The host's answer to an attempt, for its limit; the limit after it. */
  record(host: string, answer: Answer, now: number): number {
    const limit = this.limitOf(host)
    limit.record(answer, now)
    return limit.limit
  }

  /** Each host this process knows: its limit, what it is sending now, its pause. Busiest first. */
  hosts(now: number): HostView[] {
    return [...this.limits]
      .map(([host, limit]) => ({
        host,
        limit: limit.limit,
        sending: this.inside.get(host) ?? 0,
        pausedUntil: limit.open(now) ? null : new Date(limit.pausedUntil),
      }))
      .sort((a, b) => b.sending - a.sending || a.host.localeCompare(b.host))
  }

  /** Past `kept` hosts, forgets those with nothing claimed and no pause; returns the hosts forgotten. */
  forgetIdle(now: number): string[] {
    if (this.limits.size <= this.options.kept) return []
    const forgotten: string[] = []
    for (const [host, limit] of this.limits) {
      if (this.claimedPerHost.has(host) || !limit.open(now)) continue
      this.limits.delete(host)
      forgotten.push(host)
    }
    return forgotten
  }

  private limitOf(host: string): HostLimit {
    let limit = this.limits.get(host)
    if (!limit) this.limits.set(host, (limit = new HostLimit({ initial: this.options.initial, max: this.options.max })))
    return limit
  }
}

function adjust(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by
  if (next <= 0) counts.delete(key)
  else counts.set(key, next)
}
