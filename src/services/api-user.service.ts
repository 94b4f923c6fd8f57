import { AppError } from '../domain/errors'
import type { ApiTokenRow, ApiUserRepository, ApiUserRow } from '../db/api-user.repository'
import { hashToken, newApiToken, newWebhookSecret } from './credentials'

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
  constructor(private readonly users: ApiUserRepository) {}

  async create(name: unknown): Promise<NewApiUser> {
    const cleanName = parseName(name)
    const token = newApiToken()
    const webhookSecret = newWebhookSecret()
    const { userId } = await this.users.createWithToken(cleanName, webhookSecret, hashToken(token))
    return { userId, name: cleanName, token, webhookSecret }
  }

  list(): Promise<ApiUserRow[]> {
    return this.users.list()
  }

  async get(userId: number): Promise<ApiUserRow> {
    const user = await this.users.find(userId)
    if (!user) throw new AppError('not_found', `no API user ${userId}`)
    return user
  }

  async issueToken(userId: number): Promise<{ tokenId: number; token: string }> {
    const token = newApiToken()
    const tokenId = await this.users.addToken(userId, hashToken(token))
    if (tokenId === undefined) throw new AppError('not_found', `no API user ${userId}`)
    return { tokenId, token }
  }

  async listTokens(userId: number): Promise<ApiTokenRow[]> {
    const tokens = await this.users.listTokens(userId)
    if (tokens === undefined) throw new AppError('not_found', `no API user ${userId}`)
    return tokens
  }

  async revokeToken(userId: number, tokenId: number): Promise<void> {
    if (!(await this.users.revokeToken(userId, tokenId))) throw new AppError('not_found', `no token ${tokenId} for API user ${userId}`)
  }

  async rotateWebhookSecret(userId: number): Promise<{ webhookSecret: string }> {
    const webhookSecret = newWebhookSecret()
    if (!(await this.users.rotateWebhookSecret(userId, webhookSecret, SECRET_ROTATION_GRACE_SECONDS))) {
      throw new AppError('not_found', `no API user ${userId}`)
    }
    return { webhookSecret }
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
