import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AppError } from '../../domain/errors'
import type { ApiUserService } from '../../services/api-user.service'
import { bearerToken, secretsEqual } from '../../services/credentials'
import type { SettingsService } from '../../services/settings.service'
import { success } from '../envelope'
import {
  CreateUserBody,
  NewToken,
  NewUser,
  Revoked,
  RotatedSecret,
  SettingsAnswer,
  SettingsPatch,
  TokenList,
  TokenParams,
  UserList,
  UserParams,
} from '../schemas/admin.schema'
import { BODY_ERRORS, errors } from '../schemas/common.schema'

export interface AdminRoutesOptions {
  adminToken: string
  users: ApiUserService
  settings: SettingsService
}

const tags = ['back office']
const security = [{ adminToken: [] }]
const ADMIN_ERRORS = [401, 429] as const

/** The back office (README, "Back office"). Registered only when ADMIN_TOKEN is set. */
export const adminRoutes: FastifyPluginAsyncTypebox<AdminRoutesOptions> = async (app, { adminToken, users, settings }) => {
  app.addHook('onRequest', async (request) => {
    const token = bearerToken(request.headers.authorization)
    if (!token || !secretsEqual(token, adminToken)) throw new AppError('unauthorized', 'a valid admin token is required (Authorization: Bearer $ADMIN_TOKEN)')
  })

  app.post(
    '/admin/api-users',
    {
      schema: {
        operationId: 'createApiUser',
        summary: 'Create an API user',
        tags,
        security,
        body: CreateUserBody,
        response: { 200: NewUser, ...errors(...ADMIN_ERRORS, ...BODY_ERRORS) },
      },
    },
    async (request) => success(await users.create(request.body.name)),
  )

  app.get(
    '/admin/api-users',
    { schema: { operationId: 'listApiUsers', summary: 'List API users', tags, security, response: { 200: UserList, ...errors(...ADMIN_ERRORS) } } },
    async () => success({ users: (await users.list()).map((u) => ({ userId: u.id, name: u.name, createdAt: u.created_at.toISOString() })) }),
  )

  app.post(
    '/admin/api-users/:userId/tokens',
    {
      schema: {
        operationId: 'issueApiToken',
        summary: 'Issue another token',
        tags,
        security,
        params: UserParams,
        response: { 200: NewToken, ...errors(...ADMIN_ERRORS, 400, 404) },
      },
    },
    async (request) => success(await users.issueToken(request.params.userId)),
  )

  app.get(
    '/admin/api-users/:userId/tokens',
    {
      schema: {
        operationId: 'listApiTokens',
        summary: "List a user's tokens",
        tags,
        security,
        params: UserParams,
        response: { 200: TokenList, ...errors(...ADMIN_ERRORS, 400, 404) },
      },
    },
    async (request) =>
      success({
        tokens: (await users.listTokens(request.params.userId)).map((t) => ({
          tokenId: t.id,
          createdAt: t.created_at.toISOString(),
          revokedAt: t.revoked_at?.toISOString() ?? null,
        })),
      }),
  )

  app.delete(
    '/admin/api-users/:userId/tokens/:tokenId',
    {
      schema: {
        operationId: 'revokeApiToken',
        summary: 'Revoke a token (effective within seconds on every process)',
        tags,
        security,
        params: TokenParams,
        response: { 200: Revoked, ...errors(...ADMIN_ERRORS, 400, 404) },
      },
    },
    async (request) => {
      const { tokenId } = request.params
      await users.revokeToken(request.params.userId, tokenId)
      return success({ tokenId, revoked: true as const })
    },
  )

  app.post(
    '/admin/api-users/:userId/webhook-secret/rotate',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the webhook signing secret',
        tags,
        security,
        params: UserParams,
        response: { 200: RotatedSecret, ...errors(...ADMIN_ERRORS, 400, 404) },
      },
    },
    async (request) => success(await users.rotateWebhookSecret(request.params.userId)),
  )

  app.get(
    '/admin/settings',
    {
      schema: {
        operationId: 'getSettings',
        summary: 'Read the back-office settings',
        tags,
        security,
        response: { 200: SettingsAnswer, ...errors(...ADMIN_ERRORS) },
      },
    },
    async () => success(await settings.get()),
  )

  app.patch(
    '/admin/settings',
    {
      schema: {
        operationId: 'updateSettings',
        summary: 'Change back-office settings',
        tags,
        security,
        body: SettingsPatch,
        response: { 200: SettingsAnswer, ...errors(...ADMIN_ERRORS, ...BODY_ERRORS) },
      },
    },
    async (request) => success(await settings.update(request.body)),
  )
}
