import { Type } from '@sinclair/typebox'
import { EVENT_TYPES } from '../../domain/event-types'
import { component, DateTime, envelope, Id, NullableDateTime, ref, stringEnum } from './common.schema'
import { WebhookStatus } from './task.schema'

export const RedeliverParams = Type.Object({
  taskId: Id,
  webhookId: Type.String({ description: 'msg_…, the webhook-id header (any other value names no delivery: 404)' }),
})

export const Attempt = component(
  'WebhookAttempt',
  Type.Object({
    attemptNumber: Type.Integer({ minimum: 1 }),
    startedAt: DateTime,
    durationMs: Type.Integer({ minimum: 0 }),
    responseStatusCode: Type.Integer({ minimum: 0, description: '0 when no HTTP answer' }),
    errorMessage: Type.String({ description: '"" when none' }),
    responseBody: Type.String({ description: 'the first 2 kB of the answer' }),
  }),
)

export const Delivery = component(
  'WebhookDelivery',
  Type.Object({
    webhookId: Type.String({ description: 'the webhook-id header, stable across retries' }),
    type: stringEnum(EVENT_TYPES),
    status: ref(WebhookStatus),
    attemptCount: Type.Integer({ minimum: 0 }),
    nextRetryAt: NullableDateTime,
    lastAttemptAt: NullableDateTime,
    responseStatusCode: Type.Integer({ minimum: 0 }),
    errorMessage: Type.String(),
    createdAt: DateTime,
    attempts: Type.Array(ref(Attempt), { description: 'oldest first' }),
  }),
)

export const DeliveryHistory = envelope(
  Type.Object({ deliveries: Type.Array(ref(Delivery), { description: 'newest first, at most 100' }) }),
  "the task's webhook deliveries",
)
export const Redelivered = envelope(
  Type.Object({ webhookId: Type.String(), status: ref(WebhookStatus) }),
  'the delivery, due again now (or already on its way: pending, sending)',
)
