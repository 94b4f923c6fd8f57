import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import type { ConsoleSessionRepository } from '../db/console-session.repository'
import type { Queryable } from '../db/database'
import type { OperatorRepository } from '../db/operator.repository'
import type { SettingsRepository } from '../db/settings.repository'
import type { Actor } from '../domain/audit'
import { AppError } from '../domain/errors'
import { PASSWORD_MAX } from '../domain/operators'
import type { AuditTrail } from './audit-trail'
import { NO_OPERATOR_HASH, passwordMatches } from './passwords'
import { hashToken, secretsEqual } from './credentials'

export interface ConsoleSessionOptions {
  /** Failed sign-ins an address (in this process) or an operator (across processes) may make per window before refusals. */
  failuresPerWindow: number
  windowMs: number
}

export const CONSOLE_SESSION_DEFAULTS: ConsoleSessionOptions = { failuresPerWindow: 5, windowMs: 15 * 60_000 }

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
  /** Who is signed in, from where this request came. */
  actor: Actor & { kind: 'operator' | 'admin_token' }
  /** The hash of the session's id (to keep this session when an operator's others end). */
  idHash: Buffer
}

const SIGN_IN = { action: 'console.sign_in', target: { kind: 'console' } } as const

/**
 * The operator console's sign-in: an operator's email and password, or the admin token, for a
 * session cookie. The cookie holds a random id (the table its hash), the session a CSRF token
 * that every form must send back, and its lifetime is the consoleSessionHours setting. Failed
 * sign-ins are counted per client address in this process and per operator in the database.
 */
export class ConsoleSessionService {
  private readonly failures = new Map<string, { count: number; resetAt: number }>()

  constructor(
    private readonly sessions: ConsoleSessionRepository,
    private readonly operators: OperatorRepository,
    private readonly settings: SettingsRepository,
    private readonly audit: AuditTrail,
    private readonly options: ConsoleSessionOptions = CONSOLE_SESSION_DEFAULTS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A session of the admin token, or `unauthorized` / `rate_limited`. */
  async signInWithToken(token: unknown, adminToken: string, address: string): Promise<{ cookie: string; maxAgeSeconds: number }> {
    this.refuseThrottled(address)
    if (typeof token !== 'string' || token.length === 0 || token.length > 512 || !secretsEqual(token, adminToken)) {
      this.countFailure(address)
      throw new AppError('unauthorized', 'that is not the admin token')
    }
    this.failures.delete(address)
    const lifetimeMs = await this.lifetimeMs()
    return this.audit.record({ kind: 'admin_token', address }, SIGN_IN, (tx) => this.create(tx, null, address, lifetimeMs))
  }

  /** An operator's session, or `unauthorized` (the same words for an unknown email and a wrong password) / `rate_limited`. */
  async signInWithPassword(email: unknown, password: unknown, address: string): Promise<{ cookie: string; maxAgeSeconds: number }> {
    this.refuseThrottled(address)
    const wrong = new AppError('unauthorized', 'that email and password do not match an operator')
    if (typeof email !== 'string' || typeof password !== 'string' || email.length > 254 || password.length > PASSWORD_MAX) {
      this.countFailure(address)
      throw wrong
    }
    const operator = await this.operators.credentials(email.trim())
    // The hash is checked even when there is no such operator: the answer takes as long either way.
    const matches = await passwordMatches(password, operator?.password_hash ?? NO_OPERATOR_HASH)
    if (!operator) {
      this.countFailure(address)
      throw wrong
    }
    const actor: Actor = { kind: 'operator', operatorId: operator.id, email: operator.email, role: operator.role, address }
    if (operator.failed_sign_ins >= this.options.failuresPerWindow && operator.failures_reset_at) {
      const retryAfterSeconds = Math.max(1, Math.ceil((operator.failures_reset_at.getTime() - this.now()) / 1000))
      await this.audit.note(actor, { ...SIGN_IN, detail: { reason: 'too many failed sign-ins' } }, 'refused')
      throw new AppError(
        'rate_limited',
        `too many failed sign-ins for this operator; try again in ${Math.ceil(retryAfterSeconds / 60)} min`,
        [],
        retryAfterSeconds,
      )
    }
    if (!matches || operator.disabled) {
      this.countFailure(address)
      await this.operators.failedSignIn(operator.id, this.options.windowMs)
      await this.audit.note(actor, { ...SIGN_IN, detail: { reason: operator.disabled ? 'operator disabled' : 'wrong password' } }, 'refused')
      throw operator.disabled ? new AppError('unauthorized', 'this operator is disabled; ask an admin') : wrong
    }
    this.failures.delete(address)
    const lifetimeMs = await this.lifetimeMs()
    return this.audit.record(actor, SIGN_IN, async (tx) => {
      await this.operators.signedIn(tx, operator.id)
      return this.create(tx, operator.id, address, lifetimeMs)
    })
  }

  private async lifetimeMs(): Promise<number> {
    return (await this.settings.get()).consoleSessionHours * 3_600_000
  }

  private async create(tx: Queryable, operatorId: number | null, address: string, lifetimeMs: number): Promise<{ cookie: string; maxAgeSeconds: number }> {
    const id = randomBytes(32).toString('base64url')
    await this.sessions.create(tx, hashToken(id), randomBytes(24).toString('base64url'), lifetimeMs, operatorId, address)
    return { cookie: id, maxAgeSeconds: Math.floor(lifetimeMs / 1000) }
  }

  private refuseThrottled(address: string): void {
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
  }

  private countFailure(address: string): void {
    const now = this.now()
    const record = this.failures.get(address)
    const current = record && record.resetAt > now ? record : { count: 0, resetAt: now + this.options.windowMs }
    current.count++
    this.failures.set(address, current)
    if (this.failures.size > 10_000) this.forgetExpired(now)
  }

  /** The session of a cookie value, if it is one, has not expired and its operator is not disabled. */
  async find(cookie: string | undefined, address: string): Promise<ConsoleSession | undefined> {
    if (!cookie || cookie.length > 100) return undefined
    const idHash = hashToken(cookie)
    const row = await this.sessions.find(idHash)
    if (!row) return undefined
    const actor: ConsoleSession['actor'] =
      row.operator_id === null
        ? { kind: 'admin_token', address }
        : { kind: 'operator', operatorId: row.operator_id, email: row.email!, role: row.role!, address }
    return { csrfToken: row.csrf_token, expiresAt: row.expires_at, actor, idHash }
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
