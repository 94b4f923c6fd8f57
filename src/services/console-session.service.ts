import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
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

/** What a page shows once after the form that led to it: secrets and the notice naming them. */
export interface ShownOnce {
  token?: string
  webhookSecret?: string
  notice?: string
}

/** How long a kept slot waits for its page: the redirect follows at once; a stale one is dropped. */
const SHOWN_ONCE_MS = 5 * 60_000

/** The slot's key: from the cookie's value, which only the browser holds, kept apart from its id hash. */
const onceKey = (cookie: string) => createHash('sha256').update('console-shown-once\0').update(cookie).digest()

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

  /**
   * Keeps what a form's answer shows once (secrets, a notice) for the session's next view of
   * `path`, sealed with a key only the session's cookie gives (the database holds its hash).
   */
  async keepOnce(cookie: string | undefined, path: string, shown: ShownOnce): Promise<void> {
    if (!cookie || cookie.length > 100) return
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', onceKey(cookie), iv)
    const sealed = Buffer.concat([iv, cipher.update(JSON.stringify(shown), 'utf8'), cipher.final(), cipher.getAuthTag()])
    await this.sessions.keepOnce(hashToken(cookie), path, sealed, SHOWN_ONCE_MS)
  }

  /** What was kept for this view of `path`, once; undefined on any later view. */
  async takeOnce(cookie: string | undefined, path: string): Promise<ShownOnce | undefined> {
    if (!cookie || cookie.length > 100) return undefined
    const sealed = await this.sessions.takeOnce(hashToken(cookie), path)
    if (!sealed || sealed.length < 28) return undefined
    try {
      const decipher = createDecipheriv('aes-256-gcm', onceKey(cookie), sealed.subarray(0, 12))
      decipher.setAuthTag(sealed.subarray(sealed.length - 16))
      return JSON.parse(Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString('utf8')) as ShownOnce
    } catch {
      return undefined // not sealed with this cookie's key
    }
  }

  async signOut(cookie: string | undefined): Promise<void> {
    if (cookie && cookie.length <= 100) await this.sessions.delete(hashToken(cookie))
  }

  private forgetExpired(now: number): void {
    for (const [address, record] of this.failures) if (record.resetAt <= now) this.failures.delete(address)
  }
}
