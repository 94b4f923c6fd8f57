import type { Milestone } from './milestones'
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
  /** Not in the interface's answers: the full task's (docs/api.md). */
  milestone: Milestone
  carrierStatus: string
  estimatedDeliveryAt: Date | null
  originAddress: Address
  destinationAddress: Address
  /** Ascending by eventTime. */
  events: TrackingEvent[]
  latestWebhook: WebhookSummary | null
}

/**
 * A task as the query endpoint reads it: its events already written as the endpoint sends them
 * (kept ready on the task row), so that a query neither parses nor serialises them again. Parsing
 * and re-serialising ten events was most of the API process's work per query.
 */
export interface TaskView extends Omit<TrackingTask, 'events'> {
  /** The events as the query answer writes them (task-json.ts): a JSON array, ascending by eventTime. */
  eventsJson: string
}
