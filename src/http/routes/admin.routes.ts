import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { Actor, TargetKind } from '../../domain/audit'
import type { Action } from '../../domain/operators'
import type { AuditTrail } from '../../services/audit-trail'
import type { OperatorRow, OperatorService } from '../../services/operator.service'
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
  AUDIT_LIMIT,
  AuditPage,
  AuditQuery,
  CreateOperatorBody,
  OperatorAnswer,
  OperatorList,
  OperatorParams,
  OperatorPatch,
} from '../schemas/admin.schema'
import { BODY_ERRORS, errors } from '../schemas/common.schema'
import { UserNotificationsAnswer } from '../schemas/notification.schema'
import type { NotificationService } from '../../services/notification.service'

export interface AdminRoutesOptions {
  adminToken: string
  users: ApiUserService
  settings: SettingsService
  operators: OperatorService
  audit: AuditTrail
  notifications: NotificationService
}

const tags = ['back office']
const security = [{ adminToken: [] }]
const ADMIN_ERRORS = [401, 429] as const

/** The back office (README, "Back office"). Registered only when ADMIN_TOKEN is set. */
export const adminRoutes: FastifyPluginAsyncTypebox<AdminRoutesOptions> = async (app, { adminToken, users, settings, operators, audit, notifications }) => {
  // Every change is the admin token's, from the caller's address, in the audit trail.
  const by = (request: FastifyRequest): Actor => ({ kind: 'admin_token', address: request.ip })

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
    async (request) => success(await users.create(request.body.name, by(request))),
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
    async (request) => success(await users.issueToken(request.params.userId, by(request))),
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
          prefix: t.prefix,
          createdAt: t.created_at.toISOString(),
          lastUsedAt: t.last_used_at?.toISOString() ?? null,
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
      await users.revokeToken(request.params.userId, tokenId, by(request))
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
    async (request) => success(await users.rotateWebhookSecret(request.params.userId, by(request))),
  )

  app.get(
    '/admin/api-users/:userId/notifications',
    {
      schema: {
        operationId: 'getUserNotifications',
        summary: "A user's notification settings, and how many of its customers' addresses are suppressed",
        tags,
        security,
        params: UserParams,
        response: { 200: UserNotificationsAnswer, ...errors(...ADMIN_ERRORS, 400, 404) },
      },
    },
    async (request) => success(await notifications.ofUser(request.params.userId)),
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
    async (request) => success(await settings.update(request.body, by(request))),
  )

  app.post(
    '/admin/operators',
    {
      schema: {
        operationId: 'createOperator',
        summary: 'Create a console operator',
        tags,
        security,
        body: CreateOperatorBody,
        response: { 200: OperatorAnswer, ...errors(...ADMIN_ERRORS, ...BODY_ERRORS) },
      },
    },
    async (request) => success(operatorJson(await operators.create(request.body, by(request)))),
  )

  app.get(
    '/admin/operators',
    {
      schema: { operationId: 'listOperators', summary: 'List console operators', tags, security, response: { 200: OperatorList, ...errors(...ADMIN_ERRORS) } },
    },
    async () => success({ operators: (await operators.list()).map(operatorJson) }),
  )

  app.patch(
    '/admin/operators/:operatorId',
    {
      schema: {
        operationId: 'updateOperator',
        summary: "Change an operator's role, disable or enable them, or set a new password",
        tags,
        security,
        params: OperatorParams,
        body: OperatorPatch,
        response: { 200: OperatorAnswer, ...errors(...ADMIN_ERRORS, ...BODY_ERRORS, 404) },
      },
    },
    async (request) => {
      const { operatorId } = request.params
      const { password, ...change } = request.body
      if (password !== undefined) await operators.resetPassword(operatorId, password, by(request))
      const operator = Object.keys(change).length > 0 ? await operators.update(operatorId, change, by(request)) : await operators.get(operatorId)
      return success(operatorJson(operator))
    },
  )

  app.get(
    '/admin/audit-log',
    {
      schema: {
        operationId: 'listAuditLog',
        summary: 'Read the audit trail: every change made through the console or the admin API',
        tags,
        security,
        querystring: AuditQuery,
        response: { 200: AuditPage, ...errors(...ADMIN_ERRORS, 400) },
      },
    },
    async (request) => {
      const q = request.query
      const { entries, nextBeforeId } = await audit.list(
        {
          operatorId: q.operatorId,
          actorKind: q.actorKind,
          action: q.action,
          targetKind: q.targetKind,
          targetId: q.targetId,
          since: q.since === undefined ? undefined : new Date(q.since),
          until: q.until === undefined ? undefined : new Date(q.until),
          beforeId: q.cursor === undefined ? undefined : Number(q.cursor),
        },
        q.limit ?? AUDIT_LIMIT.default,
      )
      return success({
        entries: entries.map((e) => ({
          id: e.id,
          at: e.at.toISOString(),
          actorKind: e.actor_kind,
          operatorId: e.operator_id,
          actor: e.actor,
          action: e.action as Action,
          targetKind: e.target_kind as TargetKind | null,
          targetId: e.target_id,
          address: e.address,
          outcome: e.outcome,
          detail: e.detail,
        })),
        nextCursor: nextBeforeId === null ? null : String(nextBeforeId),
      })
    },
  )
}

const operatorJson = (o: OperatorRow) => ({
  operatorId: o.id,
  email: o.email,
  role: o.role,
  createdAt: o.created_at.toISOString(),
  disabledAt: o.disabled_at?.toISOString() ?? null,
  sessions: o.sessions,
})
