import { Type, type SchemaOptions, type Static, type TObject, type TOptional, type TSchema } from '@sinclair/typebox'
import { CARRIER_CHANGE_REASONS, CORRECTION_OUTCOMES, CORRECTION_TRY_OUTCOMES } from '../../domain/carrier-change'
import { MILESTONE_NAMES } from '../../domain/milestones'
import { STANDARD_STATUSES, WEBHOOK_STATUSES } from '../../domain/statuses'
import {
  ADDRESS_FIELDS,
  EVENT_FIELDS,
  FULL_EVENT_FIELDS,
  FULL_TASK,
  LATEST_WEBHOOK,
  PROOF_OF_DELIVERY_FIELDS,
  QUERY_TASK,
  type FullTaskJson,
  type FullTaskMember,
  type MemberKind,
  type MemberTypes,
  type Members,
  type TaskJson,
} from '../../domain/task-document'
import { BASES, MIN_LANE_DELIVERIES } from '../../domain/transit-times'
import { component, DateTime, Id, NullableDateTime, ref, stringEnum } from './common.schema'

/**
 * The task's documents as schemas, made from the domain's tables of their members
 * (domain/task-document.ts): each member's schema is its kind's (KIND_SCHEMAS, held to the
 * domain's types by the typechecker) with the words this file gives it. A member added to the
 * domain's tables is in every schema at once.
 */

export const StandardStatus = component('StandardStatus', stringEnum(STANDARD_STATUSES, { description: 'the standard status (docs/api.md, Statuses)' }))
export const Milestone = component(
  'Milestone',
  stringEnum(MILESTONE_NAMES, { description: 'a finer status, always one of its standard status (docs/api.md, Milestones)' }),
)
export const WebhookStatus = component('WebhookStatus', stringEnum(WEBHOOK_STATUSES, { description: 'the state of a webhook delivery (docs/webhooks.md)' }))

/** An object schema of `fields` in their order, each from `schemaOf`, with the words `about` gives it. */
function objectOf<K extends string>(fields: readonly K[], schemaOf: (field: K) => TSchema, about: Partial<Record<K, SchemaOptions>>, options: SchemaOptions) {
  return Type.Object(Object.fromEntries(fields.map((field) => [field, { ...schemaOf(field), ...about[field] }])), options)
}

export const Address = component(
  'Address',
  Type.Unsafe<MemberTypes['address']>(objectOf(ADDRESS_FIELDS, () => Type.String(), {}, { description: 'a place; "" for a part the carrier did not give' })),
)

const EVENT_KINDS = {
  datetime: DateTime,
  text: Type.String(),
  milestone: Type.Union([ref(Milestone), Type.Literal('')]),
  localTime: Type.Union([Type.String({ examples: ['2026-11-25T14:03:00-08:00'] }), Type.Null()]),
  offset: Type.Union([Type.String({ pattern: '^[+-][0-9]{2}:[0-9]{2}$', examples: ['-08:00'] }), Type.Null()]),
}
const EVENT_WORDS: Partial<Record<keyof typeof FULL_EVENT_FIELDS, SchemaOptions>> = {
  eventCode: { description: "the carrier's event code" },
  status: { description: 'the standard status the event maps to; "" when its code is unknown' },
  exceptionDescription: { description: '"" when none' },
  milestone: { description: '"" when the carrier\'s table does not know the code' },
  localTime: { description: "eventTime at the event's own offset, as the carrier wrote it; null when the carrier gives no offset (never guessed)" },
  utcOffset: { description: "the offset of the event's local time; null when the carrier gives none" },
}
const eventOf = (fields: Record<string, keyof typeof EVENT_KINDS>, options: SchemaOptions) =>
  objectOf(Object.keys(fields) as (keyof typeof FULL_EVENT_FIELDS)[], (field) => EVENT_KINDS[fields[field]!], EVENT_WORDS, options)

export const TrackingEvent = component('TrackingEvent', Type.Unsafe<MemberTypes['events'][number]>(eventOf(EVENT_FIELDS, {})))
export const FullTrackingEvent = component(
  'FullTrackingEvent',
  Type.Unsafe<MemberTypes['fullEvents'][number]>(eventOf(FULL_EVENT_FIELDS, { description: 'a tracking event of the full task' })),
)

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

const PROOF_KINDS = {
  signedBy: Type.String(),
  location: Type.String(),
  signatureAvailable: Type.Boolean(),
  documentUrl: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
}
export const ProofOfDelivery = component(
  'ProofOfDelivery',
  Type.Unsafe<NonNullable<MemberTypes['proofOfDelivery']>>(
    objectOf(
      PROOF_OF_DELIVERY_FIELDS,
      (field) => PROOF_KINDS[field],
      {
        signedBy: { description: 'who signed or received it; "" when the carrier does not say' },
        location: { description: 'where it was left ("Front Door", "Receptionist/Front Desk"); "" when the carrier does not say' },
        signatureAvailable: { description: 'the carrier holds a signature image' },
        documentUrl: { description: "an https link to the carrier's proof-of-delivery document; null unless the carrier gives one" },
      },
      {},
    ),
  ),
)

const CarrierChange = component(
  'CarrierChange',
  Type.Object({
    previousCarrierCode: Type.String(),
    carrierCode: Type.String(),
    reason: stringEnum(CARRIER_CHANGE_REASONS, { description: 'user: PATCH or the console; auto_correct: the worker found the number with this carrier' }),
    changedAt: DateTime,
  }),
)

const CarrierCorrection = component(
  'CarrierCorrection',
  Type.Object({
    startedAt: DateTime,
    finishedAt: { ...NullableDateTime, description: 'null while it runs' },
    outcome: Type.Union([stringEnum(CORRECTION_OUTCOMES), Type.Null()], {
      description:
        'moved: to the first carrier that knew the number; not_found: none did; conflict: that carrier is one you already track the number with (the task stays); superseded: the task changed meanwhile; null while it runs',
    }),
    tried: Type.Array(Type.Object({ carrierCode: Type.String(), outcome: stringEnum(CORRECTION_TRY_OUTCOMES) }), {
      description: 'each candidate carrier asked, best first, with what it answered (failed: the request failed; unavailable: its circuit was open)',
    }),
  }),
)

/** Each kind of member's schema. */
const KIND_SCHEMAS = {
  id: Id,
  count: Type.Integer({ minimum: 0 }),
  text: Type.String(),
  status: ref(StandardStatus),
  milestone: ref(Milestone),
  webhookStatus: ref(WebhookStatus),
  boolean: Type.Boolean(),
  time: DateTime,
  timeOrNull: NullableDateTime,
  address: ref(Address),
  proofOfDelivery: Type.Union([ref(ProofOfDelivery), Type.Null()]),
  prediction: Type.Union([ref(Prediction), Type.Null()]),
  events: Type.Array(ref(TrackingEvent)),
  fullEvents: Type.Array(ref(FullTrackingEvent)),
  latestWebhook: Type.Union([Type.Unsafe<MemberTypes['latestWebhook']>(Type.Ref('LatestWebhook')), Type.Null()]),
  carrierChanges: Type.Array(ref(CarrierChange)),
  carrierCorrection: Type.Union([ref(CarrierCorrection), Type.Null()]),
} satisfies Record<MemberKind, TSchema>

// Each kind's schema and the type the domain writes it as must agree: a kind added to one and not
// the other, or given another type, fails the typecheck here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type KindsAgree = { [K in MemberKind]: Same<Static<(typeof KIND_SCHEMAS)[K]>, MemberTypes[K]> }
const kindsAgree: false extends KindsAgree[MemberKind] ? never : true = true
void kindsAgree

/** The words of the task's members, in every document that has them. */
const MEMBER_WORDS: Partial<Record<FullTaskMember | 'attemptCount' | 'nextRetryAt' | 'lastAttemptAt' | 'responseStatusCode' | 'errorMessage', SchemaOptions>> =
  {
    carrierCode: { examples: ['FEDEX'] },
    externalReferenceNo: { description: '"" when none was given' },
    callbackUrl: { description: 'where tracking.status_changed is sent' },
    carrierStatus: { description: 'the carrier\'s own status text; "" before the first fetch' },
    estimatedDeliveryAt: { description: 'null when the carrier gave none' },
    predictedDeliveryAt: {
      description:
        'the service\'s own prediction, from delivered tasks of the same lane (docs/api.md, "Predicted delivery"): the first scan plus the lane\'s median transit time; null before the first scan, for a terminal task and where no lane has enough deliveries. Never replaces estimatedDeliveryAt',
    },
    prediction: { description: 'what predictedDeliveryAt rests on, and its window; null when it is null' },
    proofOfDelivery: { description: 'what the carrier says of the delivery (FedEx, UPS, DHL); null until a fetch returns one, then kept until another does' },
    trackingPageUrl: {
      format: 'uri',
      description:
        'the public tracking page for the shop\'s customer (docs/api.md, "The tracking page"): PUBLIC_BASE_URL/t/{token}, a random token replaced by POST …/tracking-page/rotate',
    },
    active: { description: 'still fetched: false once terminal, stopped or expired' },
    stoppedAt: { description: 'when the user stopped it' },
    updatedAt: { description: 'moves when anything shown here changes (not on a fetch that found nothing new, nor on webhook attempts)' },
    lastCheckedAt: { description: 'the last carrier fetch' },
    nextCheckAt: { description: 'the next fetch planned; null when inactive' },
    events: { description: 'ascending by eventTime' },
    latestWebhook: { description: 'null before the first webhook' },
    carrierChanges: { description: 'the carrier changes of the task, oldest first (PATCH …/{taskId}, auto-correct); at most 5' },
    carrierCorrection: { description: 'the task\'s auto-correct (docs/api.md, "Auto-correct"): what it tried and how it ended; null until one starts' },
    attemptCount: {},
    nextRetryAt: { description: 'null unless the status is retry_wait' },
    lastAttemptAt: { description: 'null before the first attempt' },
    responseStatusCode: { description: '0 when no HTTP answer came back' },
    errorMessage: { description: '"" when none' },
  }

type KindSchemas = typeof KIND_SCHEMAS
/** A document's schema type: each member its kind's schema, the optional ones optional. */
type DocumentSchema<M extends Members, O extends keyof M> = TObject<{
  -readonly [K in keyof M]: K extends O ? TOptional<KindSchemas[M[K]]> : KindSchemas[M[K]]
}>

/** A document's schema from its table of members: each its kind's schema with its words; `optional` members may be absent. */
function documentOf<M extends Members, O extends keyof M & string = never>(
  members: M,
  options: SchemaOptions,
  optional: readonly O[] = [],
): DocumentSchema<M, O> {
  const properties = Object.entries(members).map(([member, kind]) => {
    const schema = { ...KIND_SCHEMAS[kind], ...MEMBER_WORDS[member as keyof typeof MEMBER_WORDS] }
    return [member, (optional as readonly string[]).includes(member) ? Type.Optional(schema) : schema]
  })
  return Type.Object(Object.fromEntries(properties), options) as unknown as DocumentSchema<M, O>
}

export const LatestWebhook = component('LatestWebhook', documentOf(LATEST_WEBHOOK, { description: 'the newest webhook delivery of the task' }))

export const Task = component('Task', documentOf(QUERY_TASK, { description: 'a subscription task, as the query endpoint answers it' }))

export const FullTask = component(
  'FullTask',
  documentOf(
    FULL_TASK,
    { description: "a subscription task with its life: the query endpoint's fields and more; events in list items only with include=events" },
    ['events'],
  ),
)

// Made from the same tables, the documents' schemas are the types the domain writes: checked all the same.
const documentsAgree: [Same<Static<typeof Task>, TaskJson>, Same<Static<typeof FullTask>, FullTaskJson>] = [true, true]
void documentsAgree
