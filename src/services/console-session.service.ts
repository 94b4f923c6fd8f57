import { randomBytes } from 'node:crypto'
import type { ConsoleSessionRepository } from '../db/console-session.repository'
import { AppError } from '../domain/errors'
import { hashToken, secretsEqual } from './credentials'

export interface ConsoleSessionOptions {
  /** How long a session lasts after sign-in (no sliding renewal: an operator signs in again). */
  lifetimeMs: number
  /** Failed sign-ins an address may make per window before it is refused for the window's rest. */
  failuresPerWindow: number
  windowMs: number
}

export const CONSOLE_SESSION_DEFAULTS: ConsoleSessionOptions = { lifetimeMs: 8 * 3_600_000, failuresPerWindow: 5, windowMs: 15 * 60_000 }

export interface ConsoleSession {
  csrfToken: string
  expiresAt: Date
}

/**
 * The operator console's sign-in: the admin token, once, for a session cookie. The cookie holds a
 * random id (the table its hash), the session a CSRF token that every form must send back. Failed
 * sign-ins are counted per client address in this process and refused past the limit.
 */
export class ConsoleSessionService {
  private readonly failures = new Map<string, { count: number; resetAt: number }>()

  constructor(
    private readonly sessions: ConsoleSessionRepository,
    private readonly options: ConsoleSessionOptions = CONSOLE_SESSION_DEFAULTS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session's cookie value, or `unauthorized` / `rate_limited`. */
  async signIn(token: unknown, adminToken: string, address: string): Promise<{ cookie: string; maxAgeSeconds: number }> {
    const now = this.now()
    const record = this.failures.get(address)
    if (record && record.resetAt > now && record.count >= this.options.failuresPerWindow) {
      const retryAfterSeconds = Math.ceil((record.resetAt - now) / 1000)
      throw new AppError(
        'rate_limited',
        `too many failed sign-ins from this address; try again in ${Math.ceil(retryAfterSeconds / 60)} min`,
        [],
        retryAfterSeconds,
      )
    }
    if (typeof token !== 'string' || token.length === 0 || token.length > 512 || !secretsEqual(token, adminToken)) {
      const current = record && record.resetAt > now ? record : { count: 0, resetAt: now + this.options.windowMs }
      current.count++
      this.failures.set(address, current)
      if (this.failures.size > 10_000) this.forgetExpired(now)
      throw new AppError('unauthorized', 'that is not the admin token')
    }
    this.failures.delete(address)
    const id = randomBytes(32).toString('base64url')
    await this.sessions.create(hashToken(id), randomBytes(24).toString('base64url'), this.options.lifetimeMs)
    return { cookie: id, maxAgeSeconds: Math.floor(this.options.lifetimeMs / 1000) }
  }

  /** The session of a cookie value, if it is one and has not expired. */
  async find(cookie: string | undefined): Promise<ConsoleSession | undefined> {
    if (!cookie || cookie.length > 100) return undefined
    const row = await this.sessions.find(hashToken(cookie))
    return row && { csrfToken: row.csrf_token, expiresAt: row.expires_at }
  }

  /** True when a form's CSRF token is the session's. */
  csrfValid(session: ConsoleSession, given: unknown): boolean {
    return typeof given === 'string' && given.length > 0 && given.length <= 100 && secretsEqual(given, session.csrfToken)
  }

  async signOut(cookie: string | undefined): Promise<void> {
    if (cookie && cookie.length <= 100) await this.sessions.delete(hashToken(cookie))
  }

  private forgetExpired(now: number): void {
    for (const [address, record] of this.failures) if (record.resetAt <= now) this.failures.delete(address)
  }
}
