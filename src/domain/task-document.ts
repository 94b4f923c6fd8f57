import type { CarrierChangeJson, CarrierCorrectionJson } from './carrier-change'
import type { Milestone } from './milestones'
import type { StandardStatus, WebhookStatus } from './statuses'
import type { Address, ProofOfDelivery, TrackingEvent } from './tracking-task'
import { localTimeOf, type CarrierEvent } from './tracking-update'
import type { Basis } from './transit-times'

/**
 * The task on the wire: the one table of the members of its documents, their order and how each
 * value is written (datetimes as ISO 8601 in UTC with milliseconds and a Z). From it come the
 * documents' TypeScript types (here), the SQL that renders them (db/task-document.sql.ts, which
 * must name a source for every member, or the typecheck fails) and the HTTP schemas, made from
 * these tables (http/schemas/task.schema.ts: each kind's schema held to MemberTypes by the
 * typechecker; http/schemas/task-document.test.ts renders every document and checks it).
 *
 * Adding a member: a line in QUERY_TASK or FULL_TASK (the order is the document's), its source in
 * db/task-document.sql.ts, the column in a migration and the code that fills it, and its words in
 * the HTTP schema's MEMBER_WORDS when it needs any.
 */

/** How each kind of member is written, as the type it has in JSON. */
export interface MemberTypes {
  id: number
  count: number
  text: string
  status: StandardStatus
  milestone: Milestone
  webhookStatus: WebhookStatus
  boolean: boolean
  /** ISO 8601 in UTC with milliseconds and a Z. */
  time: string
  timeOrNull: string | null
  address: Address
  proofOfDelivery: ProofOfDelivery | null
  prediction: PredictionJson | null
  /** The interface's events, ascending by eventTime. */
  events: TrackingEventJson[]
  /** The full task's events (with their milestones), ascending by eventTime. */
  fullEvents: FullEventJson[]
  latestWebhook: WebhookSummaryJson | null
  /** The task's carrier changes, oldest first. */
  carrierChanges: CarrierChangeJson[]
  carrierCorrection: CarrierCorrectionJson | null
}

export type MemberKind = keyof MemberTypes
export type Members = Readonly<Record<string, MemberKind>>
/** A document's type: each member as its kind is written. */
export type DocumentOf<M extends Members> = { -readonly [K in keyof M]: MemberTypes[M[K]] }

/** The interface's task: the query answer, and (without latestWebhook) the callback's tracking.status_changed. */
export const QUERY_TASK = {
  taskId: 'id',
  carrierCode: 'text',
  trackingNumber: 'text',
  externalReferenceNo: 'text',
  standardStatus: 'status',
  carrierStatus: 'text',
  estimatedDeliveryAt: 'timeOrNull',
  originAddress: 'address',
  destinationAddress: 'address',
  events: 'events',
  latestWebhook: 'latestWebhook',
} as const satisfies Members

/** The full task (GET …/{taskId}, the list's items, the endpoints' events): the query's members and the task's life. */
export const FULL_TASK = {
  taskId: 'id',
  carrierCode: 'text',
  trackingNumber: 'text',
  externalReferenceNo: 'text',
  callbackUrl: 'text',
  standardStatus: 'status',
  milestone: 'milestone',
  carrierStatus: 'text',
  estimatedDeliveryAt: 'timeOrNull',
  predictedDeliveryAt: 'timeOrNull',
  prediction: 'prediction',
  originAddress: 'address',
  destinationAddress: 'address',
  proofOfDelivery: 'proofOfDelivery',
  trackingPageUrl: 'text',
  active: 'boolean',
  stoppedAt: 'timeOrNull',
  createdAt: 'time',
  updatedAt: 'time',
  lastCheckedAt: 'timeOrNull',
  nextCheckAt: 'timeOrNull',
  carrierChanges: 'carrierChanges',
  carrierCorrection: 'carrierCorrection',
  events: 'fullEvents',
  latestWebhook: 'latestWebhook',
} as const satisfies Members

export type QueryTaskMember = keyof typeof QUERY_TASK
export type FullTaskMember = keyof typeof FULL_TASK

export type TaskJson = DocumentOf<typeof QUERY_TASK>
/** `events` is absent from list items unless asked for (include=events). */
export type FullTaskJson = Omit<DocumentOf<typeof FULL_TASK>, 'events'> & { events?: FullEventJson[] }

/** A tracking event's members, in order, and how each is written. */
export const EVENT_FIELDS = {
  eventTime: 'datetime',
  eventCode: 'text',
  status: 'text',
  statusInfo: 'text',
  description: 'text',
  exceptionDescription: 'text',
  country: 'text',
  state: 'text',
  city: 'text',
  postalCode: 'text',
  address: 'text',
} as const satisfies Record<keyof TrackingEvent, 'datetime' | 'text'>

export type EventField = keyof typeof EVENT_FIELDS

/**
 * The events of the full task: the interface's members, the event's milestone ("" when its code is
 * unknown), its local time with the carrier's offset and that offset (both null without one).
 */
export const FULL_EVENT_FIELDS = { ...EVENT_FIELDS, milestone: 'text', localTime: 'localTime', utcOffset: 'offset' } as const

/** An event as JSON holds it: eventTime as an ISO 8601 string. */
export type TrackingEventJson = Record<EventField, string>

/** An event of the full task as JSON holds it. */
export type FullEventJson = TrackingEventJson & { milestone: Milestone | ''; localTime: string | null; utcOffset: string | null }

/** What a predicted delivery rests on (domain/transit-times.ts): its lane, its deliveries, and the 10th and 90th percentile's times. */
export interface PredictionJson {
  basis: Basis
  samples: number
  earliest: string
  latest: string
}

/** latestWebhook: the newest delivery of the task's own (not an endpoint's). */
export interface WebhookSummaryJson {
  status: WebhookStatus
  attemptCount: number
  /** null unless the delivery is waiting to be retried (retry_wait). */
  nextRetryAt: string | null
  /** null before the first attempt. */
  lastAttemptAt: string | null
  /** 0 when no HTTP answer came back. */
  responseStatusCode: number
  /** "" when none. */
  errorMessage: string
}

/** latestWebhook's members, in order, and how each is written. */
export const LATEST_WEBHOOK = {
  status: 'webhookStatus',
  attemptCount: 'count',
  nextRetryAt: 'timeOrNull',
  lastAttemptAt: 'timeOrNull',
  responseStatusCode: 'count',
  errorMessage: 'text',
} as const satisfies Record<keyof WebhookSummaryJson, MemberKind>

/** Every key of T, in the order given: a member added to T and not here fails the typecheck. */
const membersOf =
  <T>() =>
  <const K extends readonly (keyof T)[]>(keys: K & (Exclude<keyof T, K[number]> extends never ? unknown : never)) =>
    keys

/** An address's members, in the order the documents write them. */
export const ADDRESS_FIELDS = membersOf<Address>()(['country', 'state', 'city', 'postalCode', 'address'])

/** A proof of delivery's members, in the order the documents write them. */
export const PROOF_OF_DELIVERY_FIELDS = membersOf<ProofOfDelivery>()(['signedBy', 'location', 'signatureAvailable', 'documentUrl'])

/** A proof of delivery as the documents write it (and the task row stores it): its members in order. */
export function proofOfDeliveryJson(p: ProofOfDelivery): ProofOfDelivery {
  return Object.fromEntries(PROOF_OF_DELIVERY_FIELDS.map((field) => [field, p[field]])) as unknown as ProofOfDelivery
}

/** An address as the documents write it: compact, its members in ADDRESS_FIELDS' order. */
export function addressJson(a: Address): Address {
  return Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, a[field]])) as unknown as Address
}

/** An event of the full task, as the database writes it (events-view.ts): its members in FULL_EVENT_FIELDS' order. */
export function fullEventToJson(event: CarrierEvent): FullEventJson {
  return { ...eventToJson(event), milestone: event.milestone, localTime: localTimeOf(event.eventTime, event.utcOffset), utcOffset: event.utcOffset }
}

export function eventToJson(event: TrackingEvent): TrackingEventJson {
  const json = {} as Record<EventField, string>
  for (const field of Object.keys(EVENT_FIELDS) as EventField[]) {
    const value = event[field]
    json[field] = value instanceof Date ? value.toISOString() : value
  }
  return json
}

/**
 * A document as the JSON text it is sent as (the database writes the documents: no parse, no
 * serialisation on the way out). The type says which document; `parseDocument` reads it back
 * where a value is needed.
 */
export type JsonText<T> = string & { readonly __document?: T }

export function parseDocument<T>(text: JsonText<T>): T {
  return JSON.parse(text) as T
}
