import { objectText, RawJson, type JsonMembers } from './json-text'
import type { Milestone } from './milestones'
import type { Address, TaskView, TrackingEvent, TrackingTask, WebhookSummary } from './tracking-task'

/**
 * The task on the wire: the one place that says which members the query answer and the
 * `tracking.status_changed` payload hold, in which order, and how each value is written
 * (datetimes as ISO 8601 in UTC with milliseconds and a Z). The events' SQL rendering
 * (db/events-view.ts) is generated from EVENT_FIELDS, and the HTTP schema is checked against
 * TaskJson by the typechecker (http/schemas/task.schema.ts).
 */

/** An address's members, in order. */
export const ADDRESS_FIELDS = ['country', 'state', 'city', 'postalCode', 'address'] as const satisfies readonly (keyof Address)[]

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

/** The events of the full task: the interface's members and the event's milestone ("" when its code is unknown). */
export const FULL_EVENT_FIELDS = { ...EVENT_FIELDS, milestone: 'text' } as const

/** An event of the full task as JSON holds it. */
export type FullEventJson = TrackingEventJson & { milestone: Milestone | '' }

/** An event as JSON holds it: eventTime as an ISO 8601 string. */
export type TrackingEventJson = Record<EventField, string>

export interface WebhookSummaryJson {
  status: WebhookSummary['status']
  attemptCount: number
  nextRetryAt: string | null
  lastAttemptAt: string | null
  responseStatusCode: number
  errorMessage: string
}

export interface TaskJson {
  taskId: number
  carrierCode: string
  trackingNumber: string
  externalReferenceNo: string
  standardStatus: TrackingTask['standardStatus']
  carrierStatus: string
  estimatedDeliveryAt: string | null
  originAddress: Address
  destinationAddress: Address
  events: TrackingEventJson[]
  latestWebhook: WebhookSummaryJson | null
}

const iso = (date: Date | null) => date?.toISOString() ?? null

export function addressJson(a: Address): Address {
  return { country: a.country, state: a.state, city: a.city, postalCode: a.postalCode, address: a.address }
}

export function eventToJson(event: TrackingEvent): TrackingEventJson {
  const json = {} as Record<EventField, string>
  for (const field of Object.keys(EVENT_FIELDS) as EventField[]) {
    const value = event[field]
    json[field] = value instanceof Date ? value.toISOString() : value
  }
  return json
}

export function eventFromJson(event: TrackingEventJson): TrackingEvent {
  return { ...event, eventTime: new Date(event.eventTime) }
}

export function webhookSummaryJson(webhook: WebhookSummary | null): WebhookSummaryJson | null {
  return (
    webhook && {
      status: webhook.status,
      attemptCount: webhook.attemptCount,
      nextRetryAt: iso(webhook.nextRetryAt),
      lastAttemptAt: iso(webhook.lastAttemptAt),
      responseStatusCode: webhook.responseStatusCode,
      errorMessage: webhook.errorMessage,
    }
  )
}

/** The members of a view's document, in order; its events the text they are kept as. */
export function taskViewMembers(view: TaskView): JsonMembers {
  const { eventsJson, ...task } = view
  return [
    ['taskId', task.taskId],
    ['carrierCode', task.carrierCode],
    ['trackingNumber', task.trackingNumber],
    ['externalReferenceNo', task.externalReferenceNo],
    ['standardStatus', task.standardStatus],
    ['carrierStatus', task.carrierStatus],
    ['estimatedDeliveryAt', iso(task.estimatedDeliveryAt)],
    ['originAddress', addressJson(task.originAddress)],
    ['destinationAddress', addressJson(task.destinationAddress)],
    ['events', new RawJson(eventsJson)],
    ['latestWebhook', webhookSummaryJson(task.latestWebhook)],
  ]
}

/** The same document as text, from a view whose events are kept as text: no parse, no re-serialisation. */
export function taskViewJsonText(view: TaskView): string {
  return objectText(taskViewMembers(view))
}

/** The task a view describes, with its events as objects. */
export function taskOfView({ eventsJson, ...task }: TaskView): TrackingTask {
  return { ...task, events: (JSON.parse(eventsJson) as TrackingEventJson[]).map(eventFromJson) }
}

/** The full task (GET …/{taskId}, the list's items, the endpoints' events): the query's members and the task's life. */
export interface FullTaskJson extends Omit<TaskJson, 'events' | 'latestWebhook'> {
  milestone: Milestone
  callbackUrl: string
  active: boolean
  stoppedAt: string | null
  createdAt: string
  updatedAt: string
  lastCheckedAt: string | null
  nextCheckAt: string | null
  /** Absent from list items unless asked for (include=events). */
  events?: FullEventJson[]
  latestWebhook: WebhookSummaryJson | null
}

/**
 * The full task's members, in order, and how each is written. The database writes the document
 * from this list (db/task-document.ts): a page of the list is one statement's text, with nothing
 * for Node to parse or serialise (it was most of a page's cost). `events` is left out where a
 * document says so (list items without include=events, the events_added payload).
 */
export const FULL_TASK_FIELDS = {
  taskId: 'integer',
  carrierCode: 'text',
  trackingNumber: 'text',
  externalReferenceNo: 'text',
  callbackUrl: 'text',
  standardStatus: 'text',
  milestone: 'text',
  carrierStatus: 'text',
  estimatedDeliveryAt: 'datetime',
  originAddress: 'address',
  destinationAddress: 'address',
  active: 'boolean',
  stoppedAt: 'datetime',
  createdAt: 'datetime',
  updatedAt: 'datetime',
  lastCheckedAt: 'datetime',
  nextCheckAt: 'datetime',
  events: 'events',
  latestWebhook: 'latestWebhook',
} as const satisfies Record<keyof FullTaskJson, 'integer' | 'text' | 'boolean' | 'datetime' | 'address' | 'events' | 'latestWebhook'>

export type FullTaskField = keyof typeof FULL_TASK_FIELDS

/** The address members and the latestWebhook members, as the documents write them. */
export const LATEST_WEBHOOK_FIELDS = ['status', 'attemptCount', 'nextRetryAt', 'lastAttemptAt', 'responseStatusCode', 'errorMessage'] as const satisfies readonly (keyof WebhookSummaryJson)[]
