import type { WebhookStatus } from './statuses'

/** The parts of a task's normalised view that carriers fill and the records keep (its documents: task-document.ts). */

export interface Address {
  country: string
  state: string
  city: string
  postalCode: string
  address: string
}

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
