import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AppError } from '../../domain/errors'
import type { ApiUserService } from '../../services/api-user.service'
import { bearerToken, secretsEqual } from '../../services/credentials'
import type { SettingsService } from '../../services/settings.service'
import { success } from '../presenters'
import { CreateUserBody, SettingsPatch, TokenParams, UserParams, adminResponses } from '../schemas/admin.schema'

export interface AdminRoutesOptions {
  adminToken: string
  users: ApiUserService
  settings: SettingsService
}

const tags = ['back office']
const security = [{ adminToken: [] }]

/** The back office (decisions §2). Registered only when ADMIN_TOKEN is set. */
export const adminRoutes: FastifyPluginAsyncTypebox<AdminRoutesOptions> = async (app, { adminToken, users, settings }) => {
  app.addHook('onRequest', async (request) => {
    const token = bearerToken(request.headers.authorization)
    if (!token || !secretsEqual(token, adminToken)) throw new AppError('unauthorized', 'a valid admin token is required (Authorization: Bearer $ADMIN_TOKEN)')
  })

  app.post('/admin/api-users', { schema: { summary: 'Create an API user', tags, security, body: CreateUserBody, response: adminResponses.createUser } }, async (request) =>
    success(await users.create(request.body.name)),
  )

  app.get('/admin/api-users', { schema: { summary: 'List API users', tags, security, response: adminResponses.listUsers } }, async () =>
    success({ users: (await users.list()).map((u) => ({ userId: u.id, name: u.name, createdAt: u.created_at.toISOString() })) }),
  )

  app.post('/admin/api-users/:userId/tokens', { schema: { summary: 'Issue another token', tags, security, params: UserParams, response: adminResponses.issueToken } }, async (request) =>
    success(await users.issueToken(Number(request.params.userId))),
  )

  app.get('/admin/api-users/:userId/tokens', { schema: { summary: "List a user's tokens", tags, security, params: UserParams, response: adminResponses.listTokens } }, async (request) =>
    success({
      tokens: (await users.listTokens(Number(request.params.userId))).map((t) => ({
        tokenId: t.id,
        createdAt: t.created_at.toISOString(),
        revokedAt: t.revoked_at?.toISOString() ?? null,
      })),
    }),
  )

  app.delete(
    '/admin/api-users/:userId/tokens/:tokenId',
    { schema: { summary: 'Revoke a token (effective within seconds on every process)', tags, security, params: TokenParams, response: adminResponses.revokeToken } },
    async (request) => {
      const tokenId = Number(request.params.tokenId)
      await users.revokeToken(Number(request.params.userId), tokenId)
      return success({ tokenId, revoked: true as const })
    },
  )

  app.post(
    '/admin/api-users/:userId/webhook-secret/rotate',
    { schema: { summary: 'Rotate the webhook signing secret', tags, security, params: UserParams, response: adminResponses.rotateSecret } },
    async (request) => success(await users.rotateWebhookSecret(Number(request.params.userId))),
  )

  app.get('/admin/settings', { schema: { summary: 'Read the back-office settings', tags, security, response: adminResponses.settings } }, async () =>
    success(await settings.get()),
  )

  app.patch('/admin/settings', { schema: { summary: 'Change back-office settings', tags, security, body: SettingsPatch, response: adminResponses.settings } }, async (request) =>
    success(await settings.update(request.body)),
  )
}
