import { Type } from '@sinclair/typebox'
import { MILESTONE_NAMES } from '../../domain/milestones'
import { STANDARD_STATUSES } from '../../domain/statuses'
import { EXTERNAL_REFERENCE_MAX, TRACKING_NUMBER_MAX } from '../../domain/subscription-input'
import { LIST_LIMIT, LIST_SORTS } from '../../domain/task-list'
import { component, DateTime, envelope, Id, ref, stringEnum } from './common.schema'
import { FullTask } from './task.schema'

/** The full task, the list, stop, refresh now and delete (docs/api.md, "The task's life"). */

export const TaskParams = Type.Object({ taskId: Id })

export const FullTaskAnswer = envelope(ref(FullTask), 'the task')

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

export const CarrierChangeBody = Type.Object(
  {
    carrierCode: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "a carrier code of GET /openapi/carriers (any case), or AUTO to let detection pick as on subscribe; the task's own carrier changes nothing",
      examples: ['USPS'],
    }),
  },
  { additionalProperties: false },
)
