import { Type } from '@sinclair/typebox'
import { EVENT_TYPES } from '../../domain/event-types'
import { WEBHOOK_STATUSES } from '../../domain/statuses'
import { CALLBACK_URL_MAX } from '../../domain/subscription-input'
import { ENDPOINT_DESCRIPTION_MAX, ENDPOINTS_PER_USER } from '../../domain/webhook-endpoint'
import { LOG_LIMIT, REPLAY_MAX } from '../../services/delivery-log.service'
import { component, DateTime, envelope, Id, NullableDateTime, ref, stringEnum } from './common.schema'
import { Milestone, WebhookStatus } from './task.schema'

/** Account webhook endpoints, the delivery log and the bulk replay (docs/webhooks.md). */

const EventType = component('EventType', stringEnum(EVENT_TYPES, { description: 'a webhook event type (docs/webhooks.md)' }))

const fields = {
  url: Type.String({ format: 'uri', maxLength: CALLBACK_URL_MAX, description: 'an absolute http or https URL; the callbackUrl rules and SSRF policy apply' }),
  eventTypes: Type.Array(ref(EventType), { minItems: 1, uniqueItems: true, description: 'the event types sent to it' }),
  description: Type.String({ maxLength: ENDPOINT_DESCRIPTION_MAX }),
  carrierCodes: Type.Array(Type.String({ minLength: 1, maxLength: 32 }), {
    uniqueItems: true,
    description: 'only tasks of these carriers (codes of GET /openapi/carriers); empty: every carrier',
  }),
  milestones: Type.Array(ref(Milestone), {
    uniqueItems: true,
    description: 'only tasks whose milestone (after the change) is one of these; empty: every milestone',
  }),
  enabled: Type.Boolean({ description: 'a disabled endpoint is sent nothing; disabling fails its waiting deliveries (replayable)' }),
}

export const EndpointParams = Type.Object({ endpointId: Id })

export const CreateEndpointBody = Type.Object(
  {
    url: fields.url,
    eventTypes: fields.eventTypes,
    description: Type.Optional(fields.description),
    carrierCodes: Type.Optional(fields.carrierCodes),
    milestones: Type.Optional(fields.milestones),
    enabled: Type.Optional(fields.enabled),
  },
  { additionalProperties: false, description: `an endpoint; at most ${ENDPOINTS_PER_USER} a user` },
)

export const UpdateEndpointBody = Type.Partial(Type.Object(fields), { additionalProperties: false, minProperties: 1, description: 'the fields to change' })

const Endpoint = component(
  'WebhookEndpoint',
  Type.Object({
    endpointId: Id,
    url: Type.String(),
    eventTypes: Type.Array(ref(EventType)),
    description: Type.String(),
    carrierCodes: Type.Array(Type.String()),
    milestones: Type.Array(ref(Milestone)),
    enabled: Type.Boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  }),
)

const NewEndpoint = component(
  'NewWebhookEndpoint',
  Type.Composite([Endpoint, Type.Object({ secret: Type.String({ description: "whsec_…, this endpoint's signing secret; shown only here and on rotation" }) })]),
)

export const EndpointAnswer = envelope(ref(Endpoint), 'the endpoint')
export const NewEndpointAnswer = envelope(ref(NewEndpoint), 'the endpoint with its secret, shown once')
export const EndpointList = envelope(
  Type.Object({ endpoints: Type.Array(ref(Endpoint), { description: `oldest first, at most ${ENDPOINTS_PER_USER}` }) }),
  "the user's endpoints",
)
export const EndpointDeleted = envelope(Type.Object({ endpointId: Id, deleted: Type.Literal(true) }), 'deleted, with its deliveries')
export const RotatedEndpointSecret = envelope(
  Type.Object({
    endpointId: Id,
    secret: Type.String({ description: 'whsec_…; shown once' }),
    previousSecretExpiresAt: { ...DateTime, description: 'the old secret signs beside it until then' },
  }),
  'the new secret',
)
export const TestCallAnswer = envelope(
  Type.Object({
    responseStatusCode: Type.Integer({ minimum: 0, description: '0 when no HTTP answer came back' }),
    durationMs: Type.Integer({ minimum: 0 }),
    errorMessage: Type.String({ description: '"" on a 2xx' }),
  }),
  'what the endpoint answered to webhook.test',
)

export const LogQuery = Type.Object(
  {
    status: Type.Optional(stringEnum(WEBHOOK_STATUSES)),
    eventType: Type.Optional(stringEnum(EVENT_TYPES)),
    endpointId: Type.Optional(Id),
    taskId: Type.Optional(Id),
    createdFrom: Type.Optional({ ...Type.String({ format: 'date-time' }), description: 'inclusive' }),
    createdTo: Type.Optional({ ...Type.String({ format: 'date-time' }), description: 'exclusive' }),
    limit: Type.Optional(Type.Integer({ minimum: LOG_LIMIT.min, maximum: LOG_LIMIT.max, description: `default ${LOG_LIMIT.default}` })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'nextCursor of the previous page, with the same filters' })),
  },
  { description: 'filters combine with AND; unknown parameters are refused' },
)

const LogEntry = component(
  'WebhookLogEntry',
  Type.Object({
    webhookId: Type.String({ description: 'the webhook-id header, stable across retries' }),
    eventType: stringEnum(EVENT_TYPES),
    taskId: Id,
    endpointId: Type.Union([Id, Type.Null()], { description: "null: the task's own callbackUrl" }),
    status: ref(WebhookStatus),
    attemptCount: Type.Integer({ minimum: 0 }),
    createdAt: DateTime,
    lastAttemptAt: NullableDateTime,
    nextRetryAt: NullableDateTime,
    responseStatusCode: Type.Integer({ minimum: 0, description: 'of the last attempt; 0 when none or no HTTP answer' }),
    errorMessage: Type.String({ description: 'of the last attempt; "" when none' }),
  }),
)

export const LogPage = envelope(
  Type.Object({
    items: Type.Array(ref(LogEntry), { description: 'newest first' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page' }),
  }),
  "a page of the user's deliveries",
)

export const ReplayBody = Type.Object(
  {
    status: Type.Literal('failed', { description: 'only failed deliveries are replayed' }),
    createdFrom: { ...Type.String({ format: 'date-time' }), description: 'inclusive' },
    createdTo: { ...Type.String({ format: 'date-time' }), description: 'exclusive' },
    endpointId: Type.Optional(Id),
  },
  { additionalProperties: false },
)

export const ReplayAnswer = envelope(
  Type.Object({
    queued: Type.Integer({
      minimum: 0,
      maximum: REPLAY_MAX,
      description: `deliveries made due again (oldest first, at most ${REPLAY_MAX}; ${REPLAY_MAX}: call again for the rest)`,
    }),
  }),
  'how many were queued',
)
