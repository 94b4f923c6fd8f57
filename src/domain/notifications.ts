import { emailProblem, oneLine, unsafeInHeader } from './email-address'
import { BODY_FIELD, MUST, type FieldError } from './errors'
import type { Milestone } from './milestones'
import type { Channel, PlannedDelivery } from './outbox'
import { LANGUAGES, type Language, type TrackingPage } from './tracking-page'

/**
 * Telling the shop's customer (docs/notifications.md): the recipient of a task, an API user's
 * settings, and the rules that decide which change sends which message. Pure: the refresh plans the
 * messages in the transaction of the change (task-events.ts), the outbox sends them, and the
 * database holds each (task, trigger, channel) to one message.
 */

/** The milestones a message may be sent at; `in_transit` is the "shipped" message. */
export const TRIGGERS = [
  'in_transit',
  'out_for_delivery',
  'available_for_pickup',
  'failed_attempt',
  'delivered',
  'exception',
] as const satisfies readonly Milestone[]
export type Trigger = (typeof TRIGGERS)[number]

/** The channels that reach the shop's customer. */
export type MessageChannel = Exclude<Channel, 'webhook'>

/** A task's recipient: the shop's customer. At least one way to reach them. */
export interface Recipient {
  email: string | null
  phone: string | null
  name: string | null
  /** null: the shop's default language. */
  language: Language | null
}

export interface NotificationSettings {
  email: { enabled: boolean; triggers: Trigger[]; fromName: string | null; replyTo: string | null }
  sms: { enabled: boolean; triggers: Trigger[] }
}

/** Off for every channel until the user turns one on; the triggers every anchor sends. */
export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  email: { enabled: false, triggers: [...TRIGGERS], fromName: null, replyTo: null },
  sms: { enabled: false, triggers: [...TRIGGERS] },
}

/** No message for an event older than this: a parcel first followed late is not news. */
export const STALE_AFTER_MS = 7 * 24 * 3600_000

export const NAME_MAX = 100
const E164 = /^\+[1-9][0-9]{6,14}$/

/** What is wrong with a display name (a customer's, the shop's sender name). */
export function nameProblem(value: string): string | undefined {
  if (unsafeInHeader(value)) return 'must not contain line breaks or control characters'
  if ([...value].length > NAME_MAX) return MUST.atMost(NAME_MAX)
  return undefined
}

/**
 * A recipient as the API user sent it (its schema has checked the members' types): the recipient
 * with its address lower-cased in the domain part, or what is wrong, each field under `prefix`
 * ("": the body's own fields).
 */
export function parseRecipient(
  input: { email?: string | null; phone?: string | null; name?: string | null; language?: string | null },
  prefix = 'recipient',
): { ok: true; value: Recipient } | { ok: false; details: FieldError[] } {
  const details: FieldError[] = []
  const field = (name: string) => (prefix ? `${prefix}.${name}` : name)
  const email = input.email?.trim() || null
  const phone = input.phone?.trim() || null
  const name = input.name?.trim() || null
  if (email !== null) {
    const problem = emailProblem(email)
    if (problem) details.push({ field: field('email'), message: problem })
  }
  if (phone !== null && !E164.test(phone)) details.push({ field: field('phone'), message: 'must be a phone number in E.164 (+491701234567)' })
  if (name !== null) {
    const problem = nameProblem(name)
    if (problem) details.push({ field: field('name'), message: problem })
  }
  if (email === null && phone === null) details.push({ field: prefix || BODY_FIELD, message: 'must hold an email or a phone' })
  if (details.length > 0) return { ok: false, details }
  // Anything but the four languages falls back to the shop's default.
  const tag = input.language?.trim().toLowerCase().split('-')[0]
  const language = LANGUAGES.find((l) => l === tag) ?? null
  return { ok: true, value: { email: email === null ? null : normalEmail(email), phone, name, language } }
}

/** The address as it is compared and hashed: its domain part is case-insensitive. */
export function normalEmail(email: string): string {
  const at = email.lastIndexOf('@')
  return `${email.slice(0, at)}@${email.slice(at + 1).toLowerCase()}`
}

/** What is wrong with a user's settings (the schema has checked types and the triggers' names). */
export function settingsProblems(settings: NotificationSettings): FieldError[] {
  const problems: FieldError[] = []
  const { fromName, replyTo } = settings.email
  if (fromName !== null) {
    const problem = nameProblem(fromName)
    if (problem) problems.push({ field: 'email.fromName', message: problem })
  }
  if (replyTo !== null) {
    const problem = emailProblem(replyTo)
    if (problem) problems.push({ field: 'email.replyTo', message: problem })
  }
  return problems
}

/** Whom a message comes from, by name: the shop's sender name, else its page's name, else the carrier's. */
export function senderName(fromName: string | null, page: Pick<TrackingPage, 'shop' | 'carrier'>): string {
  return oneLine(fromName ?? page.shop.name) || page.carrier.name
}

/** What a change of a task's milestone is, as the notification rules read it. */
export interface MilestoneChange {
  previous: Milestone
  milestone: Milestone
  /** The newest event's time after the change (null: no event). */
  newestEventAt: Date | null
}

const TERMINAL: readonly Milestone[] = ['delivered', 'returned', 'cancelled', 'expired']
const NOT_YET_SEEN: readonly Milestone[] = ['pending', 'info_received']

/**
 * The message a change sends on a channel, if any: the new milestone when it is one of the
 * user's triggers of that channel, unless the task was first seen already at its end (a parcel
 * subscribed after it was delivered is not news) or its newest event is older than seven days. A
 * milestone reached again is the same (task, trigger, channel): the database's key makes it send
 * nothing.
 */
export function messageTrigger(channel: MessageChannel, change: MilestoneChange, settings: NotificationSettings, now: Date): Trigger | undefined {
  if (!settings[channel].enabled || change.previous === change.milestone) return undefined
  const trigger = TRIGGERS.find((t) => t === change.milestone)
  if (!trigger || !settings[channel].triggers.includes(trigger)) return undefined
  if (NOT_YET_SEEN.includes(change.previous) && TERMINAL.includes(change.milestone)) return undefined
  if (change.newestEventAt !== null && now.getTime() - change.newestEventAt.getTime() > STALE_AFTER_MS) return undefined
  return trigger
}

/** What a message carries in the outbox: its trigger; never the recipient, nor the text (both read and made when it is sent). */
export interface MessagePayload {
  trigger: Trigger
}

export function plannedMessage(channel: MessageChannel, trigger: Trigger): PlannedDelivery {
  return { channel, target: { kind: 'recipient' }, trigger, payload: { trigger } satisfies MessagePayload }
}
