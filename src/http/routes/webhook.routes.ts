import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { DeliveryRecord } from '../../db/webhook-delivery.repository'
import type { WebhookHistoryService } from '../../services/webhook-history.service'
import { success } from '../presenters'
import { RedeliverParams, TaskParams, webhookResponses } from '../schemas/webhook.schema'

const security = [{ bearerAuth: [] }]
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
    { schema: { summary: "A task's webhook deliveries with every attempt", tags, security, params: TaskParams, response: webhookResponses.history } },
    async (request) => success({ deliveries: (await webhooks.list(request.userId, request.params.taskId)).map(present) }),
  )

  app.post(
    '/openapi/tracking-subscriptions/:taskId/webhooks/:webhookId/redeliver',
    {
      schema: {
        summary: 'Send a webhook again (a new cycle of the retry schedule, same webhook-id)',
        tags,
        security,
        params: RedeliverParams,
        response: webhookResponses.redeliver,
      },
    },
    async (request) => success(await webhooks.redeliver(request.userId, request.params.taskId, request.params.webhookId)),
  )
}
