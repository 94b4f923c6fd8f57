import type { EventType } from './event-types'
import type { Language } from './tracking-page'
import type { AnswerKind } from './host-concurrency'
import type { Milestone } from './milestones'
import type { RawJson } from './json-text'

/**
 * The outbox (docs/architecture.md, "The outbox"): everything the service owes someone is a
 * delivery, planned in the transaction of the change that makes it and sent by the workers, one
 * claim/lease/complete loop per channel with its per-target gate and the retry schedule
 * (webhook-schedule.ts). A channel is how it travels; a target is where it goes, resolved when it
 * is sent.
 */

/** How a delivery travels: its sender, its gate, its claim. */
export const CHANNELS = ['webhook', 'email', 'sms'] as const
export type Channel = (typeof CHANNELS)[number]

/**
 * Where a delivery goes, named on the row and resolved at each attempt: `callback`, its task's
 * callbackUrl as it is then (a subscribe may have changed it); `endpoint`, the account endpoint's URL;
 * `recipient`, the task's recipient as it is then (changed, removed or suppressed meanwhile).
 */
export const TARGET_KINDS = ['callback', 'endpoint', 'recipient'] as const
export type TargetKind = (typeof TARGET_KINDS)[number]

export type DeliveryTarget = { kind: 'callback' } | { kind: 'endpoint'; endpointId: number } | { kind: 'recipient' }

/** The task's own callback: the interface's `tracking.status_changed`. */
export const CALLBACK: DeliveryTarget = { kind: 'callback' }

/** A webhook a change makes, before it is stored. */
export interface PlannedWebhook {
  channel: 'webhook'
  target: DeliveryTarget
  type: EventType
  /** An object, or JSON text written already. */
  payload: object | RawJson
}

/** A message to the task's recipient a change makes, before it is stored. */
export interface PlannedMessage {
  channel: Exclude<Channel, 'webhook'>
  target: { kind: 'recipient' }
  /** The milestone that set it off: one message per task, trigger and channel (the database's key). */
  trigger: Milestone
  payload: object
}

export type PlannedDelivery = PlannedWebhook | PlannedMessage

/** A delivery's type as stored and shown: a webhook's event type, a message's `notification.<milestone>`. */
export const deliveryType = (d: PlannedDelivery): string => (d.channel === 'webhook' ? d.type : `notification.${d.trigger}`)

/**
 * How an attempt ended, as the schedule judges it: delivered; refused for good (the receiver says
 * never again: a webhook's 410 Gone); failed, and tried again on the schedule.
 */
export type AttemptOutcome = 'delivered' | 'refused' | 'failed'

/** The endpoint a target names; null for any other target. */
export const endpointIdOf = (target: DeliveryTarget): number | null => (target.kind === 'endpoint' ? target.endpointId : null)

/** What each channel's sender gets with a delivery besides its address and body. A new channel adds its own. */
export interface ChannelDetails {
  /** The signing secrets: the target's current one, and the previous one during a rotation. */
  webhook: { secrets: string[] }
  /** A message, and the recipient's name, the shop's Reply-To and the unsubscribe token of the address. */
  email: MessageDetails & { name: string | null; replyTo: string | null; unsubscribeToken: string | null }
  /** A message, and the task's milestone now (a text whose milestone the parcel has left is not sent). */
  sms: MessageDetails & { milestone: Milestone }
}

/**
 * What every message's sender reads as it is when the message is sent: the shop, the recipient's
 * language (null: the shop's default), the shop's sender name, whether the address is suppressed,
 * the task's tracking page token.
 */
export interface MessageDetails {
  userId: number
  language: Language | null
  fromName: string | null
  suppressed: boolean
  pageToken: string
}

/** A delivery as its channel's sender sees it. */
export interface Outgoing<C extends Channel = Channel> {
  /** Its message id, stable across its retries (a webhook's `webhook-id`). */
  webhookId: string
  /** The body exactly as stored: sent (and signed) byte for byte. */
  payload: string
  /** Where it goes now: its target's address (a URL for a webhook). */
  address: string
  details: ChannelDetails[C]
}

/** What an attempt came to, as its sender tells it. */
export interface SendResult {
  outcome: AttemptOutcome
  /** How the target's gate reads the answer (host-concurrency.ts). */
  answer: AnswerKind
  /** The answer's status (an HTTP status for a webhook); 0 when none came back. */
  statusCode: number
  /** "" on success. */
  error: string
  responseExcerpt: string
  durationMs: number
  /** How long the target asked to be left alone, when it said. */
  retryAfterMs: number | undefined
  /** The id the receiving side gave it (an SMS provider's message id), when it gave one. */
  providerId?: string
}

/** An attempt not made now, and not counted: due again at `until` (an SMS in the destination's quiet hours). */
export interface Postponed {
  postponedUntil: Date
}

/**
 * A channel's sender: one attempt of one delivery, never throwing for what the target did (a
 * refusal, a timeout: its result says so). The outbox's loop claims, gates, schedules and records.
 */
export interface ChannelSender<C extends Channel = Channel> {
  readonly channel: C
  /**
   * Whether an attempt whose outcome is unknown (no answer in time, the worker died mid-attempt)
   * is tried again: a webhook or an email is (its id makes a second copy one to its receiver); an
   * SMS is not (a second text is a second text).
   */
  readonly retriesUnknownOutcome: boolean
  send(delivery: Outgoing<C>): Promise<SendResult | Postponed>
  close(): Promise<void>
}
