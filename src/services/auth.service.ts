import { AppError } from '../domain/errors'
import { ExpiringMap } from '../domain/expiring-map'
import type { ApiUserRepository } from '../db/api-user.repository'
import { bearerToken, hashToken } from './credentials'

const MAX_CACHED = 10_000

/**
 * Resolves a bearer token to its API user. Verified tokens are cached for `ttlMs` (a couple of
 * seconds): a hot path without a database round trip, and a revocation that reaches every
 * process within that time. Unknown tokens are never cached, so a new token works at once.
 */
export class AuthService {
  private readonly cache: ExpiringMap<number>

  constructor(
    private readonly users: ApiUserRepository,
    ttlMs: number,
    now: () => number = Date.now,
  ) {
    this.cache = new ExpiringMap(ttlMs, MAX_CACHED, now)
  }

  /** The user id for an `Authorization` header value; throws `unauthorized` otherwise. */
  async authenticate(authorization: string | undefined): Promise<number> {
    const token = bearerToken(authorization)
    if (token === undefined) throw new AppError('unauthorized', 'a valid bearer token is required (Authorization: Bearer <token>)')
    const hash = hashToken(token)
    const key = hash.toString('base64')
    const cached = this.cache.get(key)
    if (cached !== undefined) return cached

    const found = await this.users.findUserIdByTokenHash(hash)
    if (found === undefined) {
      this.cache.delete(key)
      throw new AppError('unauthorized', 'a valid bearer token is required (Authorization: Bearer <token>)')
    }
    // The token's last use, to the minute (the console shows it): written on a cache miss when
    // more than a minute old, not awaited; a failed write only leaves it older.
    if (found.useStale) this.users.touchToken(hash).catch(() => {})
    this.cache.set(key, found.userId)
    return found.userId
  }
}
