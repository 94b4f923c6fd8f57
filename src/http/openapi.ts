import type { SwaggerOptions } from '@fastify/swagger'
import type { DeliveryType } from '../domain/event-types'
import { isRateLimited } from './rate-limit'
import {
  CarrierChangedEvent,
  DeletedEvent,
  EndpointStatusChangedEvent,
  EtaChangedEvent,
  EventsAddedEvent,
  MilestoneChangedEvent,
  StatusChangedEvent,
  TestEvent,
} from './schemas/webhook-event.schema'

/**
 * The OpenAPI document's frame: everything but the operations, which come from the routes'
 * schemas (each with an operationId, its named schemas under components, its error answers).
 */

const signatureHeaders = {
  'webhook-id': { required: true, schema: { type: 'string' }, description: 'the message id (msg_…), the same on every retry: deduplicate on it' },
  'webhook-timestamp': { required: true, schema: { type: 'string' }, description: 'unix seconds of this attempt' },
  'webhook-signature': {
    required: true,
    schema: { type: 'string' },
    description:
      'v1,<base64 HMAC-SHA256 of "id.timestamp.body"> keyed by the signing secret; two signatures, space-separated, while a rotated-out secret still signs',
  },
}

/** A webhook as the document describes it: the POST the service makes, and what it takes as success. */
function webhook(summary: string, schemas: { $id?: string }[], description: string) {
  const refs = schemas.map((schema) => ({ $ref: `#/components/schemas/${schema.$id!}` }))
  return {
    post: {
      summary,
      description,
      operationId: `on_${schemas.map((schema) => schema.$id!).join('_or_')}`,
      parameters: Object.entries(signatureHeaders).map(([name, header]) => ({ name, in: 'header', ...header })),
      requestBody: { required: true, content: { 'application/json': { schema: refs.length === 1 ? refs[0] : { anyOf: refs } } } },
      responses: {
        '2XX': { description: 'received: any 2xx within the timeout ends the delivery' },
        '410': { description: 'gone: no more attempts of this delivery' },
        default: { description: 'anything else (and a 3xx, a timeout, a refused connection) is a failed attempt, retried on the schedule' },
      },
    },
  }
}

const rateLimitHeaders = {
  'ratelimit-limit': {
    type: 'integer',
    minimum: 1,
    description: 'the size of the bucket this answer counted against (of the token and the address, the one with fewer left); absent when rate limits are off',
  },
  'ratelimit-remaining': { type: 'integer', minimum: 0, description: 'the requests left in it now' },
  'ratelimit-reset': { type: 'integer', minimum: 0, description: 'seconds until it is full again' },
}

/** Every answer of a rate-limited path declares the IETF RateLimit fields it carries (http/rate-limit.ts). */
function withRateLimitHeaders({ schema, url }: { schema: unknown; url: string }) {
  const responses = (schema as { response?: Record<string, { headers?: object }> } | undefined)?.response
  if (!responses || !isRateLimited(url)) return { schema: schema as never, url }
  const response = Object.fromEntries(
    Object.entries(responses).map(([status, answer]) => [status, { ...answer, headers: { ...answer.headers, ...rateLimitHeaders } }]),
  )
  return { schema: { ...(schema as object), response } as never, url }
}

export const openapiOptions: SwaggerOptions = {
  // The document's frame as OpenAPI 3.1 writes it (the plugin's types know 3.0's only).
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Tracking subscription API',
      version: '1.0.0',
      description:
        'Subscribe parcels by carrier and tracking number; read their normalised tracking; receive a Standard Webhooks-signed POST on every status change. Every answer is the envelope {code, data, msg}; docs/api.md in the repository is the full reference.',
      license: { name: 'UNLICENSED (proprietary)', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'npm start on this machine' }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'an API token (trk_…) issued by the back office' },
        adminToken: { type: 'http', scheme: 'bearer', description: "the service's ADMIN_TOKEN" },
      },
    },
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'subscriptions', description: 'subscribe parcels and read their tracking' },
      { name: 'tasks', description: 'the full task, the list, stop, refresh now, carrier change, delete' },
      { name: 'account', description: "the caller's own settings" },
      { name: 'webhooks', description: 'the webhooks of a task: history and redeliver' },
      { name: 'webhook endpoints', description: 'account endpoints for typed events, the delivery log, bulk replay' },
      { name: 'back office', description: 'API users, tokens, secrets and settings (ADMIN_TOKEN)' },
      { name: 'operations', description: 'liveness and readiness' },
    ],
    webhooks: {
      'tracking.status_changed': webhook(
        "A task's status changed",
        [StatusChangedEvent, EndpointStatusChangedEvent],
        "Sent when a carrier fetch changes a task's standardStatus or carrierStatus: to the task's callbackUrl as the interface describes it (StatusChangedEvent), and to each account endpoint that chose it with the full task (EndpointStatusChangedEvent); retried on the schedule until a 2xx (docs/webhooks.md).",
      ),
      'tracking.milestone_changed': webhook("A task's milestone changed", [MilestoneChangedEvent], 'To account endpoints that chose it.'),
      'tracking.eta_changed': webhook("A task's estimated delivery moved", [EtaChangedEvent], 'To account endpoints that chose it.'),
      'tracking.events_added': webhook(
        'New tracking events',
        [EventsAddedEvent],
        'To account endpoints that chose it: only the events this fetch added, each announced once.',
      ),
      'tracking.deleted': webhook('A task was deleted', [DeletedEvent], 'To account endpoints that chose it, when the user or retention deletes a task.'),
      'tracking.carrier_changed': webhook(
        'A task was moved to another carrier',
        [CarrierChangedEvent],
        'To account endpoints that chose it, when the user (PATCH …/{taskId}) or auto-correct moves a task to another carrier.',
      ),
      'webhook.test': webhook(
        'An endpoint test',
        [TestEvent],
        'Sent once, at once, by POST /openapi/webhook-endpoints/{endpointId}/test; its answer is returned to the caller and never retried.',
      ),
    } satisfies Record<DeliveryType, unknown>,
  } as never,
  transform: withRateLimitHeaders,
  // Components keep their names ($id) in the document: generated clients get named types.
  refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
}
