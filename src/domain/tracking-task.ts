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
    ...task,
    estimatedDeliveryAt: task.estimatedDeliveryAt?.toISOString() ?? null,
    events: task.events.map((e) => ({ ...e, eventTime: e.eventTime.toISOString() })),
    latestWebhook: task.latestWebhook && {
      ...task.latestWebhook,
      nextRetryAt: task.latestWebhook.nextRetryAt?.toISOString() ?? null,
      lastAttemptAt: task.latestWebhook.lastAttemptAt?.toISOString() ?? null,
    },
  }
}
