import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { SubscriptionService } from '../../services/subscription.service'
import { asJsonText, JsonAnswer, success, successText } from '../envelope'
import { API_ERRORS, BODY_ERRORS, errors, ref } from '../schemas/common.schema'
import { BatchBody, BatchResponse, Subscription, SubscribeResponse, QueryAnswer, TaskQuery } from '../schemas/subscription.schema'

export interface SubscriptionRoutesOptions {
  subscriptions: SubscriptionService
}

const tags = ['subscriptions']

/**
 * A subscribe body is checked by the subscription service against these same schemas
 * (`checkSubscription`, each batch item alone), so that its schema problems and the domain's are
 * told together, field by field: Fastify's validation of the body, which would stop at the first
 * and fail a whole batch for one item, is off for them.
 */
const checkedByService = { validatorCompiler: () => () => true }

/**
 * The query's rules are the domain's (domain/task-query.ts): exactly one of the two parameters,
 * an id only digits spell, and a well-formed id past any task's not found rather than invalid.
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
      ...checkedByService,
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
      ...checkedByService,
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
        response: { 200: Type.Unsafe<JsonAnswer>(QueryAnswer), ...errors(...API_ERRORS, 400, 404) },
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
