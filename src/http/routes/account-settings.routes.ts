import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { AccountSettingsService } from '../../services/account-settings.service'
import { success } from '../envelope'
import { AccountSettingsAnswer, AccountSettingsBody } from '../schemas/account-settings.schema'
import { API_ERRORS, BODY_ERRORS, errors } from '../schemas/common.schema'

const tags = ['account']

/** The caller's own settings, beside the service's defaults. */
export const accountSettingsRoutes: FastifyPluginAsyncTypebox<{ settings: AccountSettingsService }> = async (app, { settings }) => {
  app.get(
    '/openapi/settings',
    {
      schema: {
        operationId: 'getAccountSettings',
        summary: "The caller's settings, and what holds for it",
        tags,
        response: { 200: AccountSettingsAnswer, ...errors(...API_ERRORS) },
      },
    },
    async (request) => success(await settings.get(request.userId)),
  )

  app.put(
    '/openapi/settings',
    {
      schema: {
        operationId: 'putAccountSettings',
        summary: "Replace the caller's settings (null: the service's default)",
        tags,
        body: AccountSettingsBody,
        response: { 200: AccountSettingsAnswer, ...errors(...API_ERRORS, ...BODY_ERRORS) },
      },
    },
    async (request) => success(await settings.save(request.userId, request.body)),
  )
}
