import { Type } from '@sinclair/typebox'
import { SETTINGS } from '../../domain/settings'
import { EMAIL_MAX } from '../../domain/email-address'
import { NAME_MAX } from '../../domain/notifications'
import { CALLBACK_URL_MAX, EXTERNAL_REFERENCE_MAX, TRACKING_NUMBER_MAX } from '../../domain/subscription-input'
import { BATCH_RESULTS, SUBSCRIBE_RESULTS } from '../../domain/subscription-outcomes'
import { checkOf } from '../request-check'
import { CarrierCandidate, component, envelope, Id, ref, stringEnum } from './common.schema'
import { StandardStatus, Task } from './task.schema'

/**
 * The three endpoints of the interface. A subscription's shape is `Subscription`, checked by the
 * subscription service with `checkSubscription` (every item of a batch alone), and what a schema
 * cannot say (trimmed values, control characters, a URL's scheme and host, the carrier) is then
 * judged by the domain (domain/subscription-input.ts), every problem told at once.
 */

export const RecipientInput = component(
  'RecipientInput',
  Type.Object(
    {
      email: Type.Optional(
        Type.Union([Type.String({ maxLength: EMAIL_MAX }), Type.Null()], { description: 'an email address, no line breaks', examples: ['ana@example.com'] }),
      ),
      phone: Type.Optional(Type.Union([Type.String({ maxLength: 16 }), Type.Null()], { description: 'a mobile number in E.164', examples: ['+491701234567'] })),
      name: Type.Optional(Type.Union([Type.String({ maxLength: NAME_MAX }), Type.Null()], { description: "the customer's name, as the messages greet them" })),
      language: Type.Optional(
        Type.Union([Type.String({ maxLength: 35 }), Type.Null()], {
          description: "en, de, fr or es (a tag such as de-AT reads as de); anything else: the shop's default",
        }),
      ),
    },
    { description: "the shop's customer, told by email and SMS at the milestones the shop chose (docs/notifications.md); an email or a phone at least" },
  ),
)

export const Subscription = component(
  'Subscription',
  Type.Object(
    {
      carrierCode: Type.String({
        minLength: 1,
        description: 'a carrier of GET /openapi/carriers, or AUTO to detect it from the tracking number; trimmed and upper-cased',
        examples: ['FEDEX'],
      }),
      trackingNumber: Type.String({
        description: `1 to ${TRACKING_NUMBER_MAX} characters once trimmed; no whitespace or control characters inside`,
        examples: ['794843185271'],
      }),
      callbackUrl: Type.String({
        maxLength: CALLBACK_URL_MAX,
        description: 'an absolute http or https URL with a host, written out in full (http://…, https://…)',
        examples: ['https://shop.example/webhooks/tracking'],
      }),
      externalReferenceNo: Type.Optional(
        Type.Union([Type.String({ maxLength: EXTERNAL_REFERENCE_MAX }), Type.Null()], { description: 'your own reference; absent or null is stored as ""' }),
      ),
      recipient: Type.Optional(
        Type.Union([ref(RecipientInput), Type.Null()], {
          description: "replaces the task's recipient; null removes it; absent leaves it as it is (a batch sets it on the tasks it creates only)",
        }),
      ),
    },
    { description: 'a parcel to track; unknown fields are ignored' },
  ),
)

const SubscribeResult = component(
  'SubscribeResult',
  Type.Object({
    taskId: Id,
    carrierCode: Type.String(),
    trackingNumber: Type.String(),
    externalReferenceNo: Type.String(),
    standardStatus: ref(StandardStatus),
    result: stringEnum(SUBSCRIBE_RESULTS),
    message: Type.String(),
  }),
)

/** A subscription's schema problems, each field's first (none: its shape is right). */
export const checkSubscription = checkOf(Subscription)

export const SubscribeResponse = envelope(ref(SubscribeResult), 'the task, created or updated')

export const BatchBody = Type.Object({
  items: Type.Array(ref(Subscription), {
    minItems: 1,
    maxItems: SETTINGS.batchMaxItems.max,
    description: `1 to batchMaxItems (default ${SETTINGS.batchMaxItems.default}) subscriptions; each is judged alone, and a malformed one fails alone`,
  }),
})

/**
 * What the batch route checks of its body before the items: an object holding an array. Each
 * item is then checked alone with `checkSubscription`, and the count against the batchMaxItems
 * setting (its words name the setting's value).
 */
export const checkBatchEnvelope = checkOf(Type.Object({ items: Type.Array(Type.Unknown()) }))

/** What a batch answers of an item, and an import of a row (their place aside). */
const itemResult = (what: 'item' | 'row') => ({
  trackingNumber: Type.String(),
  carrierCode: Type.String(),
  taskId: Type.Integer({ minimum: 0, description: `0 for a failed ${what}` }),
  result: stringEnum(BATCH_RESULTS),
  message: Type.String(),
  candidates: Type.Optional(Type.Array(ref(CarrierCandidate), { description: 'with carrier_not_detected: what detection found, best first' })),
})

const BatchItemResult = component(
  'BatchItemResult',
  Type.Object({ index: Type.Integer({ minimum: 0, description: 'the position of the item in the submitted array' }), ...itemResult('item') }),
)

export const BatchResponse = envelope(
  Type.Object({ results: Type.Array(ref(BatchItemResult), { description: 'one result per submitted item, in submitted order' }) }),
  'one result per item',
)

const ImportRowResult = component(
  'ImportRowResult',
  Type.Object({
    line: Type.Integer({ minimum: 2, description: 'the line the row starts on in the file (the header is line 1; a quoted cell may span lines)' }),
    ...itemResult('row'),
  }),
)

export const ImportResponse = envelope(
  Type.Object({ results: Type.Array(ref(ImportRowResult), { description: "one result per row, in the file's order" }) }),
  'one result per row',
)

export const TaskQuery = Type.Object(
  {
    taskId: Type.Optional({ ...Id, description: 'the task id' }),
    trackingNumber: Type.Optional(Type.String({ minLength: 1, maxLength: TRACKING_NUMBER_MAX, description: 'trimmed; the newest task with this number' })),
  },
  { description: 'exactly one of taskId and trackingNumber' },
)

export const QueryAnswer = envelope(ref(Task), 'the subscription task')
