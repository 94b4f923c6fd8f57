import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { NotificationService } from '../../services/notification.service'
import { success } from '../envelope'
import { API_ERRORS, BODY_ERRORS, errors } from '../schemas/common.schema'
import { NotificationSettingsAnswer, NotificationSettingsSchema, RecipientAnswer, RecipientRemoved } from '../schemas/notification.schema'
import { RecipientInput } from '../schemas/subscription.schema'
import { TaskParams } from '../schemas/task-lifecycle.schema'

const tags = ['notifications']

/** The customer's notifications: the caller's settings, a task's recipient (docs/notifications.md). */
export const notificationRoutes: FastifyPluginAsyncTypebox<{ notifications: NotificationService }> = async (app, { notifications }) => {
  app.get(
    '/openapi/notifications',
    {
      schema: {
        operationId: 'getNotificationSettings',
        summary: "What the caller's customers are told, by email and SMS",
        tags,
        response: { 200: NotificationSettingsAnswer, ...errors(...API_ERRORS) },
      },
    },
    async (request) => success(await notifications.settings(request.userId)),
  )

  app.put(
    '/openapi/notifications',
    {
      schema: {
        operationId: 'putNotificationSettings',
        summary: "Replace what the caller's customers are told",
        tags,
        body: NotificationSettingsSchema,
        response: { 200: NotificationSettingsAnswer, ...errors(...API_ERRORS, ...BODY_ERRORS) },
      },
    },
    async (request) => success(await notifications.saveSettings(request.userId, request.body)),
  )

  app.put(
    '/openapi/tracking-subscriptions/:taskId/recipient',
    {
      schema: {
        operationId: 'putTaskRecipient',
        summary: "Set the task's recipient, the shop's customer",
        tags,
        params: TaskParams,
        body: RecipientInput,
        response: { 200: RecipientAnswer, ...errors(...API_ERRORS, ...BODY_ERRORS, 404) },
      },
    },
    async (request) => success(await notifications.setRecipient(request.userId, request.params.taskId, request.body)),
  )

  app.delete(
    '/openapi/tracking-subscriptions/:taskId/recipient',
    {
      schema: {
        operationId: 'deleteTaskRecipient',
        summary: "Remove the task's recipient: no more messages for it",
        tags,
        params: TaskParams,
        response: { 200: RecipientRemoved, ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request) => {
      await notifications.removeRecipient(request.userId, request.params.taskId)
      return success({ recipient: null })
    },
  )
}
