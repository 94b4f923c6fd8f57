import { Type, type Static } from '@sinclair/typebox'
import { MILESTONE_NAMES } from '../../domain/milestones'
import { STANDARD_STATUSES, WEBHOOK_STATUSES } from '../../domain/statuses'
import type { TaskJson } from '../../domain/task-document'
import { component, DateTime, Id, NullableDateTime, ref, stringEnum } from './common.schema'

/** The task document (domain/task-json.ts owns it; the checks at the end hold this schema to it). */

export const StandardStatus = component('StandardStatus', stringEnum(STANDARD_STATUSES, { description: 'the standard status (docs/api.md, Statuses)' }))
export const Milestone = component(
  'Milestone',
  stringEnum(MILESTONE_NAMES, { description: 'a finer status, always one of its standard status (docs/api.md, Milestones)' }),
)
export const WebhookStatus = component('WebhookStatus', stringEnum(WEBHOOK_STATUSES, { description: 'the state of a webhook delivery (docs/webhooks.md)' }))

export const Address = component(
  'Address',
  Type.Object(
    { country: Type.String(), state: Type.String(), city: Type.String(), postalCode: Type.String(), address: Type.String() },
    { description: 'a place; "" for a part the carrier did not give' },
  ),
)

export const TrackingEvent = component(
  'TrackingEvent',
  Type.Object({
    eventTime: DateTime,
    eventCode: Type.String({ description: "the carrier's event code" }),
    status: Type.String({ description: 'the standard status the event maps to; "" when its code is unknown' }),
    statusInfo: Type.String(),
    description: Type.String(),
    exceptionDescription: Type.String({ description: '"" when none' }),
    country: Type.String(),
    state: Type.String(),
    city: Type.String(),
    postalCode: Type.String(),
    address: Type.String(),
  }),
)

export const FullTrackingEvent = component(
  'FullTrackingEvent',
  Type.Composite(
    [
      TrackingEvent,
      Type.Object({
        milestone: Type.Union([ref(Milestone), Type.Literal('')], { description: '"" when the carrier\'s table does not know the code' }),
        localTime: Type.Union([Type.String({ examples: ['2026-11-25T14:03:00-08:00'] }), Type.Null()], {
          description: "eventTime at the event's own offset, as the carrier wrote it; null when the carrier gives no offset (never guessed)",
        }),
        utcOffset: Type.Union([Type.String({ pattern: '^[+-][0-9]{2}:[0-9]{2}$', examples: ['-08:00'] }), Type.Null()], {
          description: "the offset of the event's local time; null when the carrier gives none",
        }),
      }),
    ],
    {
      description: 'a tracking event of the full task',
    },
  ),
)

export const LatestWebhook = component(
  'LatestWebhook',
  Type.Object(
    {
      status: ref(WebhookStatus),
      attemptCount: Type.Integer({ minimum: 0 }),
      nextRetryAt: { ...NullableDateTime, description: 'null unless the status is retry_wait' },
      lastAttemptAt: { ...NullableDateTime, description: 'null before the first attempt' },
      responseStatusCode: Type.Integer({ minimum: 0, description: '0 when no HTTP answer came back' }),
      errorMessage: Type.String({ description: '"" when none' }),
    },
    { description: 'the newest webhook delivery of the task' },
  ),
)

export const Task = component(
  'Task',
  Type.Object(
    {
      taskId: Id,
      carrierCode: Type.String({ examples: ['FEDEX'] }),
      trackingNumber: Type.String(),
      externalReferenceNo: Type.String({ description: '"" when none was given' }),
      standardStatus: ref(StandardStatus),
      carrierStatus: Type.String({ description: 'the carrier\'s own status text; "" before the first fetch' }),
      estimatedDeliveryAt: { ...NullableDateTime, description: 'null when the carrier gave none' },
      originAddress: ref(Address),
      destinationAddress: ref(Address),
      events: Type.Array(ref(TrackingEvent), { description: 'ascending by eventTime' }),
      latestWebhook: Type.Union([ref(LatestWebhook), Type.Null()], { description: 'null before the first webhook' }),
    },
    { description: 'a subscription task, as the query endpoint answers it' },
  ),
)

// The schema and the document the domain writes must agree, member for member: a field added to
// one and not the other fails the typecheck here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const taskAgrees: Same<Static<typeof Task>, TaskJson> = true
void taskAgrees
