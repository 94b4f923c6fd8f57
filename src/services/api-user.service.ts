import { AppError } from '../domain/errors'
import type { ApiTokenRow, ApiUserRepository, ApiUserRow } from '../db/api-user.repository'
import type { Actor } from '../domain/audit'
import type { AuditTrail } from './audit-trail'
import { hashToken, newApiToken, newWebhookSecret, tokenPrefix } from './credentials'

/** How long a rotated-out webhook secret keeps signing alongside the new one (docs/api.md, Authentication). */
export const SECRET_ROTATION_GRACE_SECONDS = 24 * 60 * 60

const NAME_MAX = 100

export interface NewApiUser {
  userId: number
  name: string
  token: string
  webhookSecret: string
}

/** Back-office operations on API users, shared by the admin HTTP API and the CLI. */
export class ApiUserService {
  constructor(
    private readonly users: ApiUserRepository,
    private readonly audit: AuditTrail,
  ) {}

  /** `actor`: who asks, for the audit trail (every method that changes something takes one). */
  async create(name: unknown, actor?: Actor): Promise<NewApiUser> {
    const entry = { action: 'api_user.create', target: { kind: 'api_user' }, detail: { name: typeof name === 'string' ? name.slice(0, 100) : null } } as const
    return this.audit
      .record(
        actor,
        entry,
        async (tx) => {
          const cleanName = parseName(name)
          const token = newApiToken()
          const webhookSecret = newWebhookSecret()
          const { userId, tokenId } = await this.users.createWithToken(tx, cleanName, webhookSecret, hashToken(token), tokenPrefix(token))
          return { userId, name: cleanName, token, webhookSecret, tokenId }
        },
        (created) => ({ target: { kind: 'api_user', id: created.userId }, detail: { tokenId: created.tokenId, tokenPrefix: tokenPrefix(created.token) } }),
      )
      .then(({ tokenId: _tokenId, ...created }) => created)
  }

  list(): Promise<ApiUserRow[]> {
    return this.users.list()
  }

  /** Users whose name holds `search` (or whose id it is), in id order after `afterId`, `limit` at most. */
  search(filters: { search?: string; afterId?: number }, limit: number): Promise<ApiUserRow[]> {
    return this.users.search(filters, limit)
  }

  async get(userId: number): Promise<ApiUserRow> {
    const user = await this.users.find(userId)
    if (!user) throw new AppError('not_found', `no API user ${userId}`)
    return user
  }

  async issueToken(userId: number, actor?: Actor): Promise<{ tokenId: number; token: string }> {
    return this.audit.record(
      actor,
      { action: 'api_token.issue', target: { kind: 'api_user', id: userId } },
      async (tx) => {
        const token = newApiToken()
        const tokenId = await this.users.addToken(tx, userId, hashToken(token), tokenPrefix(token))
        if (tokenId === undefined) throw new AppError('not_found', `no API user ${userId}`)
        return { tokenId, token }
      },
      ({ tokenId, token }) => ({ detail: { tokenId, tokenPrefix: tokenPrefix(token) } }),
    )
  }

  async listTokens(userId: number): Promise<ApiTokenRow[]> {
    const tokens = await this.users.listTokens(userId)
    if (tokens === undefined) throw new AppError('not_found', `no API user ${userId}`)
    return tokens
  }

  async revokeToken(userId: number, tokenId: number, actor?: Actor): Promise<void> {
    await this.audit.record(actor, { action: 'api_token.revoke', target: { kind: 'api_token', id: tokenId }, detail: { userId } }, async (tx) => {
      if (!(await this.users.revokeToken(tx, userId, tokenId))) throw new AppError('not_found', `no token ${tokenId} for API user ${userId}`)
    })
  }

  async rotateWebhookSecret(userId: number, actor?: Actor): Promise<{ webhookSecret: string }> {
    return this.audit.record(actor, { action: 'webhook_secret.rotate', target: { kind: 'api_user', id: userId } }, async (tx) => {
      const webhookSecret = newWebhookSecret()
      if (!(await this.users.rotateWebhookSecret(tx, userId, webhookSecret, SECRET_ROTATION_GRACE_SECONDS))) {
        throw new AppError('not_found', `no API user ${userId}`)
      }
      return { webhookSecret }
    })
  }
}

function parseName(name: unknown): string {
  const clean = typeof name === 'string' ? name.trim() : ''
  if (clean.length === 0 || clean.length > NAME_MAX || /[\p{Cc}\p{Cf}]/u.test(clean) || !clean.isWellFormed()) {
    throw new AppError('validation_error', `name must be 1 to ${NAME_MAX} printable characters`, [
      { field: 'name', message: `must be 1 to ${NAME_MAX} printable characters` },
    ])
  }
  return clean
}
