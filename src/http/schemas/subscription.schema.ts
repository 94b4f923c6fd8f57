import { Type } from '@sinclair/typebox'
import { DateTime, NullableDateTime, envelope, errorResponses } from './common.schema'

/**
 * Request and response schemas of the three /openapi endpoints. Request schemas check types only;
 * the input rules that need trimming and parsing (decisions §4) live in the domain, where batch
 * items, which arrive unchecked, are judged by the same code.
 */

const StandardStatus = Type.Union(
  ['pending', 'in_transit', 'exception', 'delivered', 'returned', 'cancelled', 'expired'].map((s) => Type.Literal(s)),
  { description: 'standard status' },
)

export const SubscribeBody = Type.Object(
  {
    carrierCode: Type.String({ description: 'FEDEX or UPARCEL; trimmed and upper-cased', examples: ['FEDEX'] }),
    trackingNumber: Type.String({ description: '1 to 64 characters after trimming, no whitespace or control characters inside', examples: ['794843185271'] }),
    callbackUrl: Type.String({ description: 'absolute http(s) URL, at most 2048 characters', examples: ['https://shop.example/webhooks/tracking'] }),
    externalReferenceNo: Type.Optional(Type.Union([Type.String({ description: 'at most 128 characters' }), Type.Null()], { description: "the caller's own reference; absent or null is stored as \"\"" })),
  },
  { description: 'unknown fields are ignored' },
)

export const SubscribeResponse = envelope(
  Type.Object({
    taskId: Type.Integer({ minimum: 1 }),
    carrierCode: Type.String(),
    trackingNumber: Type.String(),
    externalReferenceNo: Type.String(),
    standardStatus: StandardStatus,
    result: Type.Union([Type.Literal('created'), Type.Literal('updated')]),
    message: Type.String(),
  }),
  'the task, created or updated',
)

export const BatchBody = Type.Object({
  items: Type.Array(Type.Unknown(), {
    description: '1 to batchMaxItems (default 100) subscriptions, each judged alone; a malformed item fails alone',
  }),
})

export const BatchResponse = envelope(
  Type.Object({
    results: Type.Array(
      Type.Object({
        index: Type.Integer({ description: 'position of the item in the submitted array' }),
        trackingNumber: Type.String(),
        carrierCode: Type.String(),
        taskId: Type.Integer({ description: '0 for a failed item' }),
        result: Type.Union([Type.Literal('created'), Type.Literal('reused'), Type.Literal('validation_error'), Type.Literal('unsupported_carrier')]),
        message: Type.String(),
      }),
    ),
  }),
  'one result per submitted item, in submitted order',
)

export const TaskQuery = Type.Object(
  {
    taskId: Type.Optional(Type.String({ description: 'positive integer', examples: ['42'] })),
    trackingNumber: Type.Optional(Type.String({ description: 'trimmed; the newest task with this number is returned' })),
  },
  { description: 'exactly one of taskId and trackingNumber' },
)

const Address = Type.Object({
  country: Type.String(),
  state: Type.String(),
  city: Type.String(),
  postalCode: Type.String(),
  address: Type.String(),
})

const TrackingEvent = Type.Object({
  eventTime: DateTime,
  eventCode: Type.String(),
  status: Type.String(),
  statusInfo: Type.String(),
  description: Type.String(),
  exceptionDescription: Type.String(),
  country: Type.String(),
  state: Type.String(),
  city: Type.String(),
  postalCode: Type.String(),
  address: Type.String(),
})

const LatestWebhook = Type.Union([
  Type.Object({
    status: Type.Union(['pending', 'sending', 'success', 'retry_wait', 'failed'].map((s) => Type.Literal(s))),
    attemptCount: Type.Integer(),
    nextRetryAt: NullableDateTime,
    lastAttemptAt: NullableDateTime,
    responseStatusCode: Type.Integer({ description: '0 when no HTTP answer' }),
    errorMessage: Type.String({ description: '"" when none' }),
  }),
  Type.Null(),
])

export const TaskResponse = envelope(
  Type.Object({
    taskId: Type.Integer(),
    carrierCode: Type.String(),
    trackingNumber: Type.String(),
    externalReferenceNo: Type.String(),
    standardStatus: StandardStatus,
    carrierStatus: Type.String(),
    estimatedDeliveryAt: NullableDateTime,
    originAddress: Address,
    destinationAddress: Address,
    events: Type.Array(TrackingEvent, { description: 'ascending by eventTime' }),
    latestWebhook: LatestWebhook,
  }),
  'the subscription task',
)

export const subscriptionResponses = {
  subscribe: { 200: SubscribeResponse, ...errorResponses },
  batch: { 200: BatchResponse, ...errorResponses },
  query: { 200: TaskResponse, ...errorResponses },
}
