import type { StandardStatus, WebhookStatus } from './statuses'

/** The normalised view of a subscription task, as the query endpoint returns it. */

export interface Address {
  country: string
  state: string
  city: string
  postalCode: string
  address: string
}

export const EMPTY_ADDRESS: Address = Object.freeze({ country: '', state: '', city: '', postalCode: '', address: '' })

export interface TrackingEvent {
  eventTime: Date
  eventCode: string
  status: string
  statusInfo: string
  description: string
  exceptionDescription: string
  country: string
  state: string
  city: string
  postalCode: string
  address: string
}

/** The newest webhook delivery of a task (latestWebhook). */
export interface WebhookSummary {
  status: WebhookStatus
  attemptCount: number
  /** Null when no retry is planned. */
  nextRetryAt: Date | null
  /** Null before the first attempt. */
  lastAttemptAt: Date | null
  /** 0 when no HTTP answer was received. */
  responseStatusCode: number
  /** "" when none. */
  errorMessage: string
}

export interface TrackingTask {
  taskId: number
  carrierCode: string
  trackingNumber: string
  externalReferenceNo: string
  standardStatus: StandardStatus
  carrierStatus: string
  estimatedDeliveryAt: Date | null
  originAddress: Address
  destinationAddress: Address
  /** Ascending by eventTime. */
  events: TrackingEvent[]
  latestWebhook: WebhookSummary | null
}

/** The task as JSON, exactly as the query endpoint returns it: datetimes as ISO 8601 UTC. */
export function taskToJson(task: TrackingTask) {
  return {
    ...taskHeadJson(task),
    events: task.events.map((e) => ({ ...e, eventTime: e.eventTime.toISOString() })),
    latestWebhook: webhookJson(task.latestWebhook),
  }
}

/** The members before `events`, in the interface's order. */
function taskHeadJson(task: Omit<TrackingTask, 'events'>) {
  return {
    taskId: task.taskId,
    carrierCode: task.carrierCode,
    trackingNumber: task.trackingNumber,
    externalReferenceNo: task.externalReferenceNo,
    standardStatus: task.standardStatus,
    carrierStatus: task.carrierStatus,
    estimatedDeliveryAt: task.estimatedDeliveryAt?.toISOString() ?? null,
    originAddress: addressJson(task.originAddress),
    destinationAddress: addressJson(task.destinationAddress),
  }
}

const addressJson = (a: Address): Address => ({ country: a.country, state: a.state, city: a.city, postalCode: a.postalCode, address: a.address })

function webhookJson(webhook: WebhookSummary | null) {
  return (
    webhook && {
      status: webhook.status,
      attemptCount: webhook.attemptCount,
      nextRetryAt: webhook.nextRetryAt?.toISOString() ?? null,
      lastAttemptAt: webhook.lastAttemptAt?.toISOString() ?? null,
      responseStatusCode: webhook.responseStatusCode,
      errorMessage: webhook.errorMessage,
    }
  )
}

/**
 * A task as the query endpoint reads it: its events already written as the endpoint sends them
 * (kept ready on the task row), so that a query neither parses nor serialises them again. Parsing
 * and re-serialising ten events was most of the API process's work per query.
 */
export interface TaskView extends Omit<TrackingTask, 'events'> {
  /** A JSON array of the interface's event objects, ascending by eventTime, eventTime in ISO 8601 UTC. */
  eventsJson: string
}

/** An event as JSON holds it: eventTime as an ISO 8601 string. */
export type TrackingEventJson = Omit<TrackingEvent, 'eventTime'> & { eventTime: string }

export function eventFromJson(event: TrackingEventJson): TrackingEvent {
  return { ...event, eventTime: new Date(event.eventTime) }
}

/** The task a view describes, with its events as objects. */
export function taskOfView({ eventsJson, ...head }: TaskView): TrackingTask {
  return { ...head, events: (JSON.parse(eventsJson) as TrackingEventJson[]).map(eventFromJson) }
}

/**
 * The view as JSON text: the document taskToJson gives for the task (same members, same order,
 * the same rendering of each), with the events spliced in as they were kept.
 */
export function taskViewToJsonText(view: TaskView): string {
  const head = JSON.stringify(taskHeadJson(view))
  return `${head.slice(0, -1)},"events":${view.eventsJson},"latestWebhook":${JSON.stringify(webhookJson(view.latestWebhook))}}`
}
