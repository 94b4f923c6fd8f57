import type { EventType } from './event-types'
import type { WebhookSummary } from './tracking-task'

/** One attempt to deliver a webhook. */
export interface WebhookAttemptRecord {
  attemptNumber: number
  startedAt: Date
  durationMs: number
  /** 0 when no HTTP answer came back. */
  responseStatusCode: number
  errorMessage: string
  /** The first 2 kB of the receiver's answer. */
  responseBody: string
}

/** A delivery in a task's history: the latestWebhook fields plus its identity and attempts. */
export interface DeliveryRecord extends WebhookSummary {
  webhookId: string
  type: EventType
  createdAt: Date
  attempts: WebhookAttemptRecord[]
}
