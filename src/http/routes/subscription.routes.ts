import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { SubscriptionService } from '../../services/subscription.service'
import { asJsonText, JsonAnswer, success, successText } from '../envelope'
import { API_ERRORS, BODY_ERRORS, errors, ref } from '../schemas/common.schema'
import { BatchBody, BatchResponse, Subscription, SubscribeResponse, TaskAnswer, TaskQuery } from '../schemas/subscription.schema'

export interface SubscriptionRoutesOptions {
  subscriptions: SubscriptionService
}

const tags = ['subscriptions']

/**
 * The interface's three endpoints judge their requests in the domain (every field problem at
 * once, each batch item alone, in the words of docs/api.md): their schemas document the requests
 * and are not run against them.
 */
const judgedByDomain = { validatorCompiler: () => () => true }

export const subscriptionRoutes: FastifyPluginAsyncTypebox<SubscriptionRoutesOptions> = async (app, { subscriptions }) => {
  app.post(
    '/openapi/tracking-subscriptions',
    {
      schema: {
        operationId: 'subscribe',
        summary: 'Subscribe to tracking of a parcel',
        description: 'Creates the task, or overwrites callbackUrl and externalReferenceNo of the one this user has for the carrier and number.',
        tags,
        body: ref(Subscription),
        response: { 200: SubscribeResponse, ...errors(...API_ERRORS, ...BODY_ERRORS) },
      },
      ...judgedByDomain,
    },
    async (request) => success(await subscriptions.subscribe(request.userId, request.body)),
  )

  app.post(
    '/openapi/tracking-subscriptions/batch',
    {
      schema: {
        operationId: 'subscribeBatch',
        summary: 'Subscribe to tracking of up to batchMaxItems parcels',
        description: 'Each item is judged alone; an existing task is reused and left exactly as it is.',
        tags,
        body: BatchBody,
        response: { 200: BatchResponse, ...errors(...API_ERRORS, ...BODY_ERRORS) },
      },
      ...judgedByDomain,
    },
    async (request) => success({ results: await subscriptions.subscribeBatch(request.userId, request.body) }),
  )

  app.get(
    '/openapi/tracking-subscriptions',
    {
      schema: {
        operationId: 'getSubscription',
        summary: 'Query a subscription by taskId or trackingNumber',
        tags,
        querystring: TaskQuery,
        response: { 200: Type.Unsafe<JsonAnswer>(TaskAnswer), ...errors(...API_ERRORS, 400, 404) },
      },
      ...judgedByDomain,
    },
    async (request, reply) => {
      const task = await subscriptions.find(request.userId, request.query)
      asJsonText(reply)
      return successText(task)
    },
  )
}
