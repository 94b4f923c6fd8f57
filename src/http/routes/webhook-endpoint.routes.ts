import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { EndpointRecord } from '../../domain/webhook-endpoint'
import type { DeliveryLogService } from '../../services/delivery-log.service'
import type { WebhookEndpointService } from '../../services/webhook-endpoint.service'
import { success } from '../envelope'
import { API_ERRORS, BODY_ERRORS, errors } from '../schemas/common.schema'
import {
  CreateEndpointBody,
  EndpointAnswer,
  EndpointDeleted,
  EndpointList,
  EndpointParams,
  LogPage,
  LogQuery,
  NewEndpointAnswer,
  ReplayAnswer,
  ReplayBody,
  RotatedEndpointSecret,
  TestCallAnswer,
  UpdateEndpointBody,
} from '../schemas/webhook-endpoint.schema'

const tags = ['webhook endpoints']
const PATH = '/openapi/webhook-endpoints'

function present(endpoint: EndpointRecord) {
  return {
    endpointId: endpoint.endpointId,
    url: endpoint.url,
    eventTypes: endpoint.eventTypes,
    description: endpoint.description,
    carrierCodes: endpoint.carrierCodes,
    milestones: endpoint.milestones,
    enabled: endpoint.enabled,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  }
}

const iso = (date: Date | null) => date?.toISOString() ?? null

/** Account webhook endpoints, the account-wide delivery log and the bulk replay. */
export const webhookEndpointRoutes: FastifyPluginAsyncTypebox<{ endpoints: WebhookEndpointService; log: DeliveryLogService }> = async (
  app,
  { endpoints, log },
) => {
  app.post(
    PATH,
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        summary: 'Register an endpoint for typed events of all your tasks',
        tags,
        body: CreateEndpointBody,
        response: { 200: NewEndpointAnswer, ...errors(...API_ERRORS, ...BODY_ERRORS, 409) },
      },
    },
    async (request) => {
      const created = await endpoints.create(request.userId, request.body)
      return success({ ...present(created), secret: created.secret })
    },
  )

  app.get(
    PATH,
    { schema: { operationId: 'listWebhookEndpoints', summary: 'Your endpoints', tags, response: { 200: EndpointList, ...errors(...API_ERRORS) } } },
    async (request) => success({ endpoints: (await endpoints.list(request.userId)).map(present) }),
  )

  app.get(
    `${PATH}/:endpointId`,
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'An endpoint',
        tags,
        params: EndpointParams,
        response: { 200: EndpointAnswer, ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request) => success(present(await endpoints.get(request.userId, request.params.endpointId))),
  )

  app.patch(
    `${PATH}/:endpointId`,
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        summary: 'Change an endpoint (URL, event types, filters, description, enabled)',
        tags,
        params: EndpointParams,
        body: UpdateEndpointBody,
        response: { 200: EndpointAnswer, ...errors(...API_ERRORS, ...BODY_ERRORS, 404) },
      },
    },
    async (request) => success(present(await endpoints.update(request.userId, request.params.endpointId, request.body))),
  )

  app.delete(
    `${PATH}/:endpointId`,
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete an endpoint and its deliveries',
        tags,
        params: EndpointParams,
        response: { 200: EndpointDeleted, ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request) => success(await endpoints.delete(request.userId, request.params.endpointId)),
  )

  app.post(
    `${PATH}/:endpointId/secret/rotate`,
    {
      schema: {
        operationId: 'rotateWebhookEndpointSecret',
        summary: 'A new signing secret; the old one keeps signing beside it for 24 h',
        tags,
        params: EndpointParams,
        response: { 200: RotatedEndpointSecret, ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request) => {
      const rotated = await endpoints.rotateSecret(request.userId, request.params.endpointId)
      return success({ ...rotated, previousSecretExpiresAt: rotated.previousSecretExpiresAt.toISOString() })
    },
  )

  app.post(
    `${PATH}/:endpointId/test`,
    {
      schema: {
        operationId: 'testWebhookEndpoint',
        summary: 'Send webhook.test to the endpoint now and report its answer (not retried)',
        tags,
        params: EndpointParams,
        response: { 200: TestCallAnswer, ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request) => success(await endpoints.test(request.userId, request.params.endpointId)),
  )

  app.get(
    '/openapi/webhook-deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'Every delivery of your account (task callbacks and endpoints), newest first',
        tags,
        querystring: LogQuery,
        response: { 200: LogPage, ...errors(...API_ERRORS, 400) },
      },
    },
    async (request) => {
      const page = await log.list(request.userId, request.query)
      return success({
        items: page.items.map((e) => ({ ...e, createdAt: e.createdAt.toISOString(), lastAttemptAt: iso(e.lastAttemptAt), nextRetryAt: iso(e.nextRetryAt) })),
        nextCursor: page.nextCursor,
      })
    },
  )

  app.post(
    '/openapi/webhook-deliveries/redeliver',
    {
      schema: {
        operationId: 'redeliverWebhookDeliveries',
        summary: 'Replay the failed deliveries of a time window (at most 10,000 a call)',
        tags,
        body: ReplayBody,
        response: { 200: ReplayAnswer, ...errors(...API_ERRORS, ...BODY_ERRORS) },
      },
    },
    async (request) => success(await log.replay(request.userId, request.body)),
  )
}
