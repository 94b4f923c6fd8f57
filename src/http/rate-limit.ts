import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../domain/errors'

/**
 * Rate limits per API token and per client address: token buckets refilled at `perSecond`,
 * holding two seconds' worth. Kept in this process (each process of a deployment limits on its
 * own). A limited request gets 429 `rate_limited` with Retry-After before anything else is done
 * for it, authentication included, so guessing tokens is throttled too. Every answer of a limited
 * path says where its caller stands (the IETF RateLimit fields, draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Limit` the bucket's size, `RateLimit-Remaining` the requests left in it,
 * `RateLimit-Reset` the seconds until it is full again; of the token's and the address's buckets,
 * the one with fewer left.
 */
export interface RateLimitOptions {
  /** Requests per second per API token; 0 turns the limit off. */
  perTokenPerSecond: number
  /** Requests per second per client address; 0 turns the limit off. */
  perAddressPerSecond: number
}

const MAX_BUCKETS = 100_000

/** Where a caller stands with a bucket after a request: its size, what is left, when it is full again (s); the wait when it was empty. */
interface Standing {
  limit: number
  remaining: number
  reset: number
  wait: number | undefined
}

class Buckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()

  constructor(private readonly perSecond: number) {}

  /** Takes one request from `key`'s bucket. */
  take(key: string, now: number): Standing {
    const capacity = this.perSecond * 2
    const bucket = this.buckets.get(key) ?? { tokens: capacity, at: now }
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond)
    bucket.at = now
    const standing = (wait: number | undefined): Standing => ({
      limit: capacity,
      remaining: Math.max(0, Math.floor(bucket.tokens)),
      reset: Math.ceil((capacity - bucket.tokens) / this.perSecond),
      wait,
    })
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket)
      return standing(Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond)))
    }
    bucket.tokens -= 1
    // Bounded memory: a flood of distinct keys starts the table over rather than growing it.
    if (!this.buckets.has(key) && this.buckets.size >= MAX_BUCKETS) this.buckets.clear()
    this.buckets.set(key, bucket)
    return standing(undefined)
  }
}

export function installRateLimits(app: FastifyInstance, options: RateLimitOptions, now: () => number = Date.now): void {
  const byToken = options.perTokenPerSecond > 0 ? new Buckets(options.perTokenPerSecond) : undefined
  const byAddress = options.perAddressPerSecond > 0 ? new Buckets(options.perAddressPerSecond) : undefined
  if (!byToken && !byAddress) return

  app.addHook('onRequest', async (request, reply) => {
    const path = request.url
    if (!isRateLimited(path)) return
    const at = now()
    let standing = byAddress?.take(`ip:${request.ip}`, at)
    const authorization = request.headers.authorization
    // /mcp by address only: each operation a tool runs is an API request of the token (and the address) itself.
    if (standing?.wait === undefined && byToken && authorization && path.startsWith('/openapi/')) {
      const token = byToken.take(createHash('sha256').update(authorization).digest('base64'), at)
      if (!standing || token.wait !== undefined || token.remaining < standing.remaining) standing = token
    }
    if (!standing) return
    reply.header('ratelimit-limit', standing.limit).header('ratelimit-remaining', standing.remaining).header('ratelimit-reset', standing.reset)
    if (standing.wait !== undefined) throw new AppError('rate_limited', `too many requests; retry after ${standing.wait} s`, [], standing.wait)
  })
}

/** The paths a limit applies to: the API, the back office, MCP, and the public tracking pages (/t/, per address like the API). */
export function isRateLimited(path: string): boolean {
  return path.startsWith('/openapi/') || path.startsWith('/admin/') || path.startsWith('/t/') || path === '/mcp' || path.startsWith('/mcp?')
}
