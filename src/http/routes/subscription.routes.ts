import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { SubscriptionService } from '../../services/subscription.service'
import { success, successTaskJsonText } from '../presenters'
import { BatchBody, SubscribeBody, TaskQuery, subscriptionResponses } from '../schemas/subscription.schema'

export interface SubscriptionRoutesOptions {
  subscriptions: SubscriptionService
}

const security = [{ bearerAuth: [] }]

export const subscriptionRoutes: FastifyPluginAsyncTypebox<SubscriptionRoutesOptions> = async (app, { subscriptions }) => {
  app.post(
    '/openapi/tracking-subscriptions',
    {
      schema: { summary: 'Subscribe to tracking of a parcel', tags: ['subscriptions'], security, body: SubscribeBody, response: subscriptionResponses.subscribe },
      // The schema documents the body; the domain judges it, reporting every field problem at
      // once in the same words as for a batch item.
      attachValidation: true,
    },
    async (request) => success(await subscriptions.subscribe(request.userId, request.body)),
  )

  app.post(
    '/openapi/tracking-subscriptions/batch',
    {
      schema: { summary: 'Subscribe to tracking of up to batchMaxItems parcels', tags: ['subscriptions'], security, body: BatchBody, response: subscriptionResponses.batch },
    },
    async (request) => success({ results: await subscriptions.subscribeBatch(request.userId, request.body.items) }),
  )

  app.get(
    '/openapi/tracking-subscriptions',
    {
      schema: { summary: 'Query a subscription by taskId or trackingNumber', tags: ['subscriptions'], security, querystring: TaskQuery, response: subscriptionResponses.query },
    },
    async (request, reply) => {
      const text = successTaskJsonText(await subscriptions.find(request.userId, request.query))
      // Already JSON: Fastify sends a string as it is when the content type says JSON. The schema
      // above still documents the answer; task-query-answer.test holds the text to it.
      return reply.type('application/json; charset=utf-8').send(text as never)
    },
  )
}
