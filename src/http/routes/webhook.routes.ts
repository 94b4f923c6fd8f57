import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { DeliveryRecord } from '../../domain/webhook-record'
import type { WebhookHistoryService } from '../../services/webhook-history.service'
import { success } from '../envelope'
import { API_ERRORS, errors } from '../schemas/common.schema'
import { TaskParams } from '../schemas/task-lifecycle.schema'
import { DeliveryHistory, RedeliverParams, Redelivered } from '../schemas/webhook.schema'

const tags = ['webhooks']

function present(record: DeliveryRecord) {
  return {
    ...record,
    nextRetryAt: record.nextRetryAt?.toISOString() ?? null,
    lastAttemptAt: record.lastAttemptAt?.toISOString() ?? null,
    createdAt: record.createdAt.toISOString(),
    attempts: record.attempts.map((a) => ({ ...a, startedAt: a.startedAt.toISOString() })),
  }
}

/** Delivery history and manual redeliver (what users of EasyPost and Ship24 ask for). */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookHistoryService }> = async (app, { webhooks }) => {
  app.get(
    '/openapi/tracking-subscriptions/:taskId/webhooks',
    {
      schema: {
        operationId: 'listTaskWebhooks',
        summary: "A task's webhook deliveries with every attempt",
        tags,
        params: TaskParams,
        response: { 200: DeliveryHistory, ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request) => success({ deliveries: (await webhooks.list(request.userId, request.params.taskId)).map(present) }),
  )

  app.post(
    '/openapi/tracking-subscriptions/:taskId/webhooks/:webhookId/redeliver',
    {
      schema: {
        operationId: 'redeliverTaskWebhook',
        summary: 'Send a webhook again (a new cycle of the retry schedule, same webhook-id)',
        tags,
        params: RedeliverParams,
        response: { 200: Redelivered, ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request) => success(await webhooks.redeliver(request.userId, request.params.taskId, request.params.webhookId)),
  )
}
