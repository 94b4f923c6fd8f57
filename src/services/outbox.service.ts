import type { Database } from '../db/database'
import { lockExpiredLeases, recordLostAttempts, type ClaimedDelivery, type OutboxRepository } from '../db/outbox.repository'
import type { Channel, ChannelSender } from '../domain/outbox'
import { afterAttempt, type AttemptFacts, type AttemptVerdict } from '../domain/webhook-schedule'
import { HostGate, type HostView } from '../webhooks/host-gate'

export type { HostView }

const REAP_EVERY_MS = 1000
/** Expired leases taken up per transaction. */
const REAP_BATCH = 500
// A claim made while every host this process knows is full can only find other hosts' deliveries,
// and walks past every due delivery of the full ones to do it: not more often than this. (Each
// slot a full host frees makes a claim that looks at every host anyway.)
const OTHER_HOSTS_CLAIM_EVERY_MS = 250
/** Receiving hosts whose learned limits are kept however idle. */
const HOSTS_KEPT = 1000

export interface DeliveryOptions {
  /** WEBHOOK_RETRY_SCHEDULE in ms: the waits after attempt 1, 2, … */
  scheduleMs: number[]
  /** How long a claim holds a delivery: longer than an attempt can take. */
  leaseMs: number
  /** Attempts in flight in this process. */
  concurrency: number
  /** Attempts in flight per gate (a webhook's: its host): where each starts, and the most it may get (domain/host-concurrency.ts). */
  hostConcurrency: number
  hostConcurrencyMax?: number
  /**
   * While attempts are in flight, claim only once this many slots are free (default 1: at once).
   * A channel whose attempts take long next to a claim (an email) claims in batches: a claim is
   * one statement whatever it takes.
   */
  claimAtLeast?: number
}

/** What a channel's loop tells the metrics: each attempt's verdict and time, each gate's limit. */
export interface ChannelMetrics {
  attempted(verdict: 'success' | 'retry' | 'failed', seconds: number): void
  gateLimit(key: string, limit: number): void
  gateForgotten(key: string): void
}

export interface DeliveryLog {
  warn(obj: object, msg: string): void
}

export interface DeliveryHooks {
  now?: () => Date
  /** 0..1, for the schedule's jitter. */
  random?: () => number
  /** Called when an attempt finishes and frees a slot (the loop claims more). */
  onSlotFree?: () => void
}

/**
 * Sends a channel's due deliveries through its sender. A round reaps the channel's expired leases
 * (at most once a second), claims as many deliveries as there are free slots, each gate at most
 * what its limit leaves room for, and starts each attempt without waiting for it. Each gate's limit
 * adapts to its target's answers (webhooks/host-gate.ts; a webhook's gate is its host): a slow or
 * failing target holds at most its own limit, so it cannot starve the others, and a paused one
 * (429 with Retry-After) is sent nothing. Each finished attempt frees its slot and calls
 * `onSlotFree`, so the loop claims more at once. A claimed delivery whose gate has no room when its
 * turn comes (its limit shrank, or it was paused) is given back unattempted. No transaction is open
 * while a target is being called.
 */
export class OutboxService<C extends Channel = Channel> {
  private inFlight = 0
  private readonly gate: HostGate
  private readonly attempts = new Set<Promise<void>>()
  private nextReapAt = 0
  private nextOtherHostsClaimAt = 0
  private readonly now: () => Date
  private readonly random: () => number
  private readonly onSlotFree: () => void

  constructor(
    private readonly db: Database,
    private readonly repository: OutboxRepository,
    private readonly sender: ChannelSender<C>,
    private readonly options: DeliveryOptions,
    private readonly metrics: ChannelMetrics,
    private readonly log: DeliveryLog,
    hooks: DeliveryHooks = {},
  ) {
    this.now = hooks.now ?? (() => new Date())
    this.random = hooks.random ?? Math.random
    this.onSlotFree = hooks.onSlotFree ?? (() => {})
    this.gate = new HostGate({ initial: options.hostConcurrency, max: options.hostConcurrencyMax ?? options.hostConcurrency, kept: HOSTS_KEPT })
  }

  /** One round; true when it filled every free slot (more may be due). */
  async runRound(): Promise<boolean> {
    // Leases run out seconds after a worker died, so looking once a second is soon enough;
    // reaping on every round cost one statement per claim.
    const now = this.now().getTime()
    if (now >= this.nextReapAt) {
      this.nextReapAt = now + REAP_EVERY_MS
      await this.reapExpiredLeases()
      for (const key of this.gate.forgetIdle(now)) this.metrics.gateForgotten(key)
    }
    const free = this.options.concurrency - this.inFlight
    if (free <= 0 || (this.inFlight > 0 && free < (this.options.claimAtLeast ?? 1))) return false
    const room = this.gate.room(now)
    if (room.size > 0 && ![...room.values()].some((n) => n > 0)) {
      if (now < this.nextOtherHostsClaimAt) return false
      this.nextOtherHostsClaimAt = now + OTHER_HOSTS_CLAIM_EVERY_MS
    }
    const claimed = await this.repository.claim(this.sender.channel, free, this.options.leaseMs, this.options.hostConcurrency, room)
    for (const delivery of claimed) {
      this.inFlight++
      this.gate.claimed(delivery.gateKey)
      // The host's slot is free once its answer is in: the next claim for it overlaps the
      // recording of this outcome (the process's slot is held until then).
      let holdsHost = true
      const hostDone = () => {
        if (!holdsHost) return
        holdsHost = false
        this.gate.unclaimed(delivery.gateKey)
        this.onSlotFree()
      }
      const attempt = this.attempt(delivery, hostDone).finally(() => {
        hostDone()
        this.inFlight--
        this.attempts.delete(attempt)
        this.onSlotFree()
      })
      this.attempts.add(attempt)
    }
    return claimed.length === free
  }

  /** Waits for the attempts in flight (at most one timeout each). */
  async drain(): Promise<void> {
    await Promise.all([...this.attempts])
  }

  /** Closes the sender (its connections); after drain. */
  close(): Promise<void> {
    return this.sender.close()
  }

  private async attempt(delivery: ClaimedDelivery<C>, hostDone: () => void): Promise<void> {
    // No room for half a lease: given back, so that the lease does not run out while it waits.
    const admitted = await this.gate.enter(delivery.gateKey, this.now().getTime() + this.options.leaseMs / 2, () => this.now().getTime())
    if (admitted !== true) {
      await this.repository
        .release(delivery, admitted)
        .catch((error: unknown) => this.log.warn({ err: error, webhookId: delivery.webhookId }, 'could not give a delivery back'))
      return
    }
    let inHost = true
    const leave = () => {
      if (!inHost) return
      inHost = false
      this.gate.leave(delivery.gateKey)
      hostDone()
    }
    try {
      const startedAt = this.now()
      const sent = await this.sender.send(delivery)
      leave()
      if ('postponedUntil' in sent) {
        // Not an attempt: given back, due when the sender said.
        await this.repository.release(delivery, sent.postponedUntil)
        return
      }
      const result = sent
      const limit = this.gate.record(
        delivery.gateKey,
        { kind: result.answer, durationMs: result.durationMs, retryAfterMs: result.retryAfterMs },
        this.now().getTime(),
      )
      this.metrics.gateLimit(delivery.gateKey, limit)
      const verdict = this.verdict({ attemptInCycle: delivery.attemptsInCycle + 1, outcome: result.outcome, retryAfterMs: result.retryAfterMs })
      this.metrics.attempted(verdict.status === 'retry_wait' ? 'retry' : verdict.status, result.durationMs / 1000)
      const completed = await this.repository.complete(delivery, {
        status: verdict.status,
        startedAt,
        nextAttemptAt: verdict.status === 'retry_wait' ? verdict.nextAttemptAt : null,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
        responseExcerpt: result.responseExcerpt,
        providerId: result.providerId ?? null,
      })
      if (!completed) this.log.warn({ webhookId: delivery.webhookId }, 'delivery attempt finished after its lease was lost; the new holder decides')
    } catch (error) {
      // The database is unreachable: the lease runs out and the attempt is counted then.
      this.log.warn({ err: error, webhookId: delivery.webhookId }, 'could not record a delivery attempt')
    } finally {
      leave()
    }
  }

  /**
   * A lease that ran out is an attempt that got no answer: the schedule says what follows, in one
   * transaction; for a channel that never sends twice what may have gone, the end.
   */
  private reapExpiredLeases(): Promise<void> {
    const outcome = this.sender.retriesUnknownOutcome ? 'failed' : 'refused'
    return this.db.transaction(async (tx) => {
      const expired = await lockExpiredLeases(tx, this.sender.channel, REAP_BATCH)
      await recordLostAttempts(
        tx,
        expired.map(({ id, attemptInCycle }) => ({ id, verdict: this.verdict({ attemptInCycle, outcome, retryAfterMs: undefined }) })),
      )
    })
  }

  private verdict(facts: AttemptFacts): AttemptVerdict {
    return afterAttempt(facts, { scheduleMs: this.options.scheduleMs, now: this.now(), random: this.random() })
  }

  /** Each gate (receiving host) this process knows: its learned limit, what it is sending now, its pause (the console's deliveries page). */
  hosts(): HostView[] {
    return this.gate.hosts(this.now().getTime())
  }
}
