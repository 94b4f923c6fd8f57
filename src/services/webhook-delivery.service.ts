import type { ClaimedDelivery, WebhookDeliveryRepository } from '../db/webhook-delivery.repository'
import { afterAttempt, type AttemptFacts, type AttemptVerdict } from '../domain/webhook-schedule'
import type { ServiceMetrics } from '../observability/metrics'
import type { WebhookHttp } from '../webhooks/webhook-http'
import { webhookHeaders } from '../webhooks/signing'

const REAP_EVERY_MS = 1000

export interface DeliveryOptions {
  /** WEBHOOK_RETRY_SCHEDULE in ms: the waits after attempt 1, 2, … */
  scheduleMs: number[]
  /** How long a claim holds a delivery: longer than an attempt can take. */
  leaseMs: number
  /** Attempts in flight in this process, and per target host. */
  concurrency: number
  hostConcurrency: number
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
 * Sends due webhooks. A round reaps expired leases (at most once a second), claims as many
 * deliveries as there are free slots (never for a host already at its limit), and starts each
 * attempt without waiting for it: a slow receiver holds at most `hostConcurrency` slots, so it
 * cannot starve the others. Each finished attempt frees its slot and calls `onSlotFree`, so the
 * loop claims more at once. No transaction is open while a receiver is being called.
 */
export class WebhookDeliveryService {
  private inFlight = 0
  /** Claimed deliveries per host (sending or waiting for the host's gate): decides saturation. */
  private readonly claimedPerHost = new Map<string, number>()
  /** Attempts actually sending per host: the gate. */
  private readonly perHost = new Map<string, number>()
  private readonly hostWaiters = new Map<string, (() => void)[]>()
  private readonly attempts = new Set<Promise<void>>()
  private nextReapAt = 0
  private readonly now: () => Date
  private readonly random: () => number
  private readonly onSlotFree: () => void

  constructor(
    private readonly repository: WebhookDeliveryRepository,
    private readonly http: WebhookHttp,
    private readonly options: DeliveryOptions,
    private readonly metrics: ServiceMetrics,
    private readonly log: DeliveryLog,
    hooks: DeliveryHooks = {},
  ) {
    this.now = hooks.now ?? (() => new Date())
    this.random = hooks.random ?? Math.random
    this.onSlotFree = hooks.onSlotFree ?? (() => {})
  }

  /** One round; true when it filled every free slot (more may be due). */
  async runRound(): Promise<boolean> {
    // Leases run out seconds after a worker died, so looking once a second is soon enough;
    // reaping on every round cost one statement per claim.
    const now = this.now().getTime()
    if (now >= this.nextReapAt) {
      this.nextReapAt = now + REAP_EVERY_MS
      // A lease that ran out is an attempt that got no answer: the schedule says what follows.
      await this.repository.reapExpiredLeases((attemptInCycle) => this.verdict({ attemptInCycle, statusCode: 0, retryAfterMs: undefined }))
    }
    const free = this.options.concurrency - this.inFlight
    if (free <= 0) return false
    const saturated = [...this.claimedPerHost].filter(([, n]) => n >= this.options.hostConcurrency).map(([host]) => host)
    const claimed = await this.repository.claim(free, this.options.leaseMs, this.options.hostConcurrency, saturated)
    for (const delivery of claimed) {
      this.inFlight++
      adjust(this.claimedPerHost, delivery.host, +1)
      const attempt = this.attempt(delivery).finally(() => {
        this.inFlight--
        adjust(this.claimedPerHost, delivery.host, -1)
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

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    await this.enterHost(delivery.host)
    try {
      const startedAt = this.now()
      const timestamp = Math.floor(startedAt.getTime() / 1000)
      const result = await this.http.post(
        delivery.url,
        webhookHeaders(delivery.secrets, delivery.webhookId, timestamp, delivery.payload),
        delivery.payload,
      )
      const verdict = this.verdict({ attemptInCycle: delivery.attemptsInCycle + 1, statusCode: result.statusCode, retryAfterMs: result.retryAfterMs })
      this.metrics.webhookAttempts.inc({ outcome: verdict.status === 'retry_wait' ? 'retry' : verdict.status })
      this.metrics.webhookAttemptSeconds.observe(result.durationMs / 1000)
      const completed = await this.repository.complete(delivery, {
        status: verdict.status,
        startedAt,
        nextAttemptAt: verdict.status === 'retry_wait' ? verdict.nextAttemptAt : null,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
        responseExcerpt: result.responseExcerpt,
      })
      if (!completed) this.log.warn({ webhookId: delivery.webhookId }, 'webhook attempt finished after its lease was lost; the new holder decides')
    } catch (error) {
      // The database is unreachable: the lease runs out and the attempt is counted then.
      this.log.warn({ err: error, webhookId: delivery.webhookId }, 'could not record a webhook attempt')
    } finally {
      this.leaveHost(delivery.host)
    }
  }

  private verdict(facts: AttemptFacts): AttemptVerdict {
    return afterAttempt(facts, { scheduleMs: this.options.scheduleMs, now: this.now(), random: this.random() })
  }

  private async enterHost(host: string): Promise<void> {
    while ((this.perHost.get(host) ?? 0) >= this.options.hostConcurrency) {
      await new Promise<void>((resolve) => this.hostWaiters.set(host, [...(this.hostWaiters.get(host) ?? []), resolve]))
    }
    adjust(this.perHost, host, +1)
  }

  private leaveHost(host: string): void {
    adjust(this.perHost, host, -1)
    const [next, ...rest] = this.hostWaiters.get(host) ?? []
    if (rest.length > 0) this.hostWaiters.set(host, rest)
    else this.hostWaiters.delete(host)
    next?.()
  }
}

function adjust(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by
  if (next <= 0) counts.delete(key)
  else counts.set(key, next)
}
