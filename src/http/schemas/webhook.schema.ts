import { Type } from '@sinclair/typebox'
import { DateTime, NullableDateTime, envelope, errorResponses } from './common.schema'

const WebhookStatus = Type.Union(['pending', 'sending', 'success', 'retry_wait', 'failed'].map((s) => Type.Literal(s)))

export const TaskParams = Type.Object({ taskId: Type.String({ description: 'positive integer' }) })
export const RedeliverParams = Type.Object({ taskId: Type.String({ description: 'positive integer' }), webhookId: Type.String({ description: 'msg_…' }) })

const Attempt = Type.Object({
  attemptNumber: Type.Integer(),
  startedAt: DateTime,
  durationMs: Type.Integer(),
  responseStatusCode: Type.Integer({ description: '0 when no HTTP answer' }),
  errorMessage: Type.String({ description: '"" when none' }),
  responseBody: Type.String({ description: 'the first 2 kB of the answer' }),
})

const Delivery = Type.Object({
  webhookId: Type.String({ description: 'the webhook-id header, stable across retries' }),
  type: Type.String({ examples: ['tracking.status_changed'] }),
  status: WebhookStatus,
  attemptCount: Type.Integer(),
  nextRetryAt: NullableDateTime,
  lastAttemptAt: NullableDateTime,
  responseStatusCode: Type.Integer(),
  errorMessage: Type.String(),
  createdAt: DateTime,
  attempts: Type.Array(Attempt, { description: 'oldest first' }),
})

export const webhookResponses = {
  history: { 200: envelope(Type.Object({ deliveries: Type.Array(Delivery, { description: 'newest first, at most 100' }) }), "the task's webhook deliveries"), ...errorResponses },
  redeliver: {
    200: envelope(Type.Object({ webhookId: Type.String(), status: WebhookStatus }), 'the delivery, due again now (or already on its way: pending, sending)'),
    ...errorResponses,
  },
}
