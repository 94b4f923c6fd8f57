import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../domain/errors'

/**
 * Rate limits per API token and per client address: token buckets refilled at `perSecond`,
 * holding two seconds' worth. Kept in this process (each process of a deployment limits on its
 * own). A limited request gets 429 `rate_limited` with Retry-After before anything else is done
 * for it, authentication included, so guessing tokens is throttled too.
 */
export interface RateLimitOptions {
  /** Requests per second per API token; 0 turns the limit off. */
  perTokenPerSecond: number
  /** Requests per second per client address; 0 turns the limit off. */
  perAddressPerSecond: number
}

const MAX_BUCKETS = 100_000

class Buckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()

  constructor(private readonly perSecond: number) {}

  /** Takes one request from `key`'s bucket; the seconds to wait when it is empty. */
  take(key: string, now: number): number | undefined {
    const capacity = this.perSecond * 2
    const bucket = this.buckets.get(key) ?? { tokens: capacity, at: now }
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond)
    bucket.at = now
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket)
      return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond))
    }
    bucket.tokens -= 1
    // Bounded memory: a flood of distinct keys starts the table over rather than growing it.
    if (!this.buckets.has(key) && this.buckets.size >= MAX_BUCKETS) this.buckets.clear()
    this.buckets.set(key, bucket)
    return undefined
  }
}

export function installRateLimits(app: FastifyInstance, options: RateLimitOptions, now: () => number = Date.now): void {
  const byToken = options.perTokenPerSecond > 0 ? new Buckets(options.perTokenPerSecond) : undefined
  const byAddress = options.perAddressPerSecond > 0 ? new Buckets(options.perAddressPerSecond) : undefined
  if (!byToken && !byAddress) return

  app.addHook('onRequest', async (request) => {
    const path = request.url
    // The public tracking pages (/t/) are limited per address like the API.
    if (!path.startsWith('/openapi/') && !path.startsWith('/admin/') && !path.startsWith('/t/')) return
    const at = now()
    let wait = byAddress?.take(`ip:${request.ip}`, at)
    const authorization = request.headers.authorization
    if (wait === undefined && byToken && authorization && path.startsWith('/openapi/')) {
      wait = byToken.take(createHash('sha256').update(authorization).digest('base64'), at)
    }
    if (wait !== undefined) throw new AppError('rate_limited', `too many requests; retry after ${wait} s`, [], wait)
  })
}
