import { Type, type Static } from '@sinclair/typebox'
import { MILESTONE_NAMES } from '../../domain/milestones'
import { STANDARD_STATUSES } from '../../domain/statuses'
import { BASES, MIN_LANE_DELIVERIES } from '../../domain/transit-times'
import { EXTERNAL_REFERENCE_MAX, TRACKING_NUMBER_MAX } from '../../domain/subscription-input'
import type { FullTaskJson } from '../../domain/task-document'
import { LIST_LIMIT, LIST_SORTS } from '../../domain/task-list'
import { component, DateTime, envelope, Id, NullableDateTime, ref, stringEnum } from './common.schema'
import { Address, FullTrackingEvent, LatestWebhook, Milestone, StandardStatus } from './task.schema'

const Prediction = component(
  'Prediction',
  Type.Object({
    basis: stringEnum(BASES, {
      description: `the lane it rests on, the narrowest with at least ${MIN_LANE_DELIVERIES} deliveries: the carrier and the origin's and destination's states, their countries, or the carrier alone`,
    }),
    samples: Type.Integer({ minimum: MIN_LANE_DELIVERIES, description: 'how many deliveries of that lane it rests on' }),
    earliest: { ...DateTime, description: "the first scan plus the lane's 10th percentile of transit time" },
    latest: { ...DateTime, description: "the first scan plus the lane's 90th percentile of transit time" },
  }),
)

export const ProofOfDelivery = component(
  'ProofOfDelivery',
  Type.Object({
    signedBy: Type.String({ description: 'who signed or received it; "" when the carrier does not say' }),
    location: Type.String({ description: 'where it was left ("Front Door", "Receptionist/Front Desk"); "" when the carrier does not say' }),
    signatureAvailable: Type.Boolean({ description: 'the carrier holds a signature image' }),
    documentUrl: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
      description: "an https link to the carrier's proof-of-delivery document; null unless the carrier gives one",
    }),
  }),
)

/** The full task, the list, stop, refresh now and delete (docs/api.md, "The task's life"). */

export const TaskParams = Type.Object({ taskId: Id })

export const FullTask = component(
  'FullTask',
  Type.Object(
    {
      taskId: Id,
      carrierCode: Type.String(),
      trackingNumber: Type.String(),
      externalReferenceNo: Type.String(),
      callbackUrl: Type.String({ description: 'where tracking.status_changed is sent' }),
      standardStatus: ref(StandardStatus),
      milestone: ref(Milestone),
      carrierStatus: Type.String(),
      estimatedDeliveryAt: NullableDateTime,
      predictedDeliveryAt: {
        ...NullableDateTime,
        description:
          'the service\'s own prediction, from delivered tasks of the same lane (docs/api.md, "Predicted delivery"): the first scan plus the lane\'s median transit time; null before the first scan, for a terminal task and where no lane has enough deliveries. Never replaces estimatedDeliveryAt',
      },
      prediction: Type.Union([ref(Prediction), Type.Null()], { description: 'what predictedDeliveryAt rests on, and its window; null when it is null' }),
      originAddress: ref(Address),
      destinationAddress: ref(Address),
      proofOfDelivery: Type.Union([ref(ProofOfDelivery), Type.Null()], {
        description: 'what the carrier says of the delivery (FedEx, UPS, DHL); null until a fetch returns one, then kept until another does',
      }),
      trackingPageUrl: Type.String({
        format: 'uri',
        description:
          'the public tracking page for the shop\'s customer (docs/api.md, "The tracking page"): PUBLIC_BASE_URL/t/{token}, a random token replaced by POST …/tracking-page/rotate',
      }),
      active: Type.Boolean({ description: 'still fetched: false once terminal, stopped or expired' }),
      stoppedAt: { ...NullableDateTime, description: 'when the user stopped it' },
      createdAt: DateTime,
      updatedAt: { ...DateTime, description: 'moves when anything shown here changes (not on a fetch that found nothing new, nor on webhook attempts)' },
      lastCheckedAt: { ...NullableDateTime, description: 'the last carrier fetch' },
      nextCheckAt: { ...NullableDateTime, description: 'the next fetch planned; null when inactive' },
      events: Type.Optional(Type.Array(ref(FullTrackingEvent), { description: 'ascending by eventTime; in list items only with include=events' })),
      latestWebhook: Type.Union([ref(LatestWebhook), Type.Null()]),
    },
    { description: "a subscription task with its life: the query endpoint's fields and more" },
  ),
)

export const TaskAnswer = envelope(ref(FullTask), 'the task')

/** A comma-separated list of values in the URL, an array once checked (http/parameters.ts). */
const comma = <const T extends readonly string[]>(values: T, description: string) =>
  Type.Unsafe<T[number][]>(Type.String({ description: `${description}: comma-separated, any of ${values.join(', ')}`, 'x-comma-separated': { enum: values } }))

export const ListQuery = Type.Object(
  {
    standardStatus: Type.Optional(comma(STANDARD_STATUSES, 'standard statuses')),
    milestone: Type.Optional(comma(MILESTONE_NAMES, 'milestones')),
    carrierCode: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'a carrier of GET /openapi/carriers, any case' })),
    trackingNumber: Type.Optional(Type.String({ minLength: 1, maxLength: TRACKING_NUMBER_MAX, description: 'exact, after trimming' })),
    externalReferenceNo: Type.Optional(Type.String({ maxLength: EXTERNAL_REFERENCE_MAX, description: 'exact' })),
    active: Type.Optional(Type.Boolean()),
    createdFrom: Type.Optional({ ...Type.String({ format: 'date-time' }), description: 'inclusive' }),
    createdTo: Type.Optional({ ...Type.String({ format: 'date-time' }), description: 'exclusive' }),
    updatedFrom: Type.Optional({ ...Type.String({ format: 'date-time' }), description: 'inclusive' }),
    updatedTo: Type.Optional({ ...Type.String({ format: 'date-time' }), description: 'exclusive' }),
    sort: Type.Optional(stringEnum(LIST_SORTS, { description: 'default -createdAt (newest first)' })),
    limit: Type.Optional(Type.Integer({ minimum: LIST_LIMIT.min, maximum: LIST_LIMIT.max, description: `default ${LIST_LIMIT.default}` })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'nextCursor of the previous page, with the same filters and sort' })),
    include: Type.Optional(stringEnum(['events'] as const, { description: 'events: give each item its events' })),
  },
  { description: 'filters combine with AND; unknown parameters are refused' },
)

const TaskPage = component(
  'TaskPage',
  Type.Object({
    items: Type.Array(ref(FullTask)),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'the next page; null on the last one' }),
  }),
)

export const TaskPageAnswer = envelope(ref(TaskPage), 'a page of tasks')

export const RefreshAccepted = Type.Object(
  {
    code: Type.Literal(202, { description: 'the HTTP status' }),
    data: Type.Object({ taskId: Id, nextCheckAt: { ...DateTime, description: 'when it is fetched: now' } }),
    msg: Type.Literal('success'),
  },
  { description: 'the task is due now and will be fetched within seconds' },
)

export const Deleted = envelope(Type.Object({ taskId: Id, deleted: Type.Literal(true) }), 'the task is gone, with its events and webhooks')

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const fullTaskAgrees: Same<Static<typeof FullTask>, FullTaskJson> = true
void fullTaskAgrees
