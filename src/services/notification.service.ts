import { createHmac } from 'node:crypto'
import type { Database, Queryable } from '../db/database'
import type { RecipientAddress, RecipientRepository, TaskMessage } from '../db/recipient.repository'
import type { SecretsRepository } from '../db/secrets.repository'
import type { TrackingPageRepository } from '../db/tracking-page.repository'
import { AppError, invalid, subscriptionNotFound } from '../domain/errors'
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  normalEmail,
  parseRecipient,
  senderName,
  settingsProblems,
  type NotificationSettings,
  type Recipient,
  type Trigger,
} from '../domain/notifications'
import { trackingPageOf, type Language, type TrackingPageBrand } from '../domain/tracking-page'
import { carrierNamed } from '../carriers/registry'
import { renderEmail } from '../notifications/email-message'
import { renderSms } from '../notifications/sms-message'
import { sampleParcel } from '../notifications/sample-parcel'
import type { Actor } from '../domain/audit'
import type { AuditTrail } from './audit-trail'

export type { TaskMessage }

/** The key of the addresses' hashes (service_secrets): the same in every process of a deployment. */
const HASH_KEY = 'recipient_address'
/** Why a number is suppressed when it replied STOP: what START lifts. */
const SMS_STOPPED = 'replied STOP'

/** A message of a user's as it would be sent, for the console's previews: the email's headers and parts, and the text. */
export interface MessagePreview {
  from: string
  replyTo: string | null
  subject: string
  text: string
  html: string
  sms: string
}

/** Where the previews' links point: they show the link's shape, not a page. */
const PREVIEW_BASE = 'https://tracking.example'

/** What /u/{token} shows: the address's language, and whether it is unsubscribed already. */
export interface UnsubscribeView {
  language: Language
  unsubscribed: boolean
  brand: TrackingPageBrand
}

/**
 * Telling the shop's customer (docs/notifications.md): a task's recipient, a user's settings, the
 * unsubscribe links and the suppressions. Addresses are compared by a keyed hash, which is all
 * that stays of them once the recipients' data is gone.
 */
export class NotificationService {
  constructor(
    private readonly db: Database,
    private readonly recipients: RecipientRepository,
    private readonly pages: TrackingPageRepository,
    private readonly secrets: SecretsRepository,
    private readonly audit: AuditTrail,
  ) {}

  async settings(userId: number): Promise<NotificationSettings> {
    return withDefaults(await this.recipients.settings(userId))
  }

  /** The back office's view of a user: its settings and how many addresses it sends nothing any more; not_found for no such user. */
  async ofUser(userId: number): Promise<{ settings: NotificationSettings; suppressedAddresses: { email: number; sms: number } }> {
    const found = await this.recipients.userView(userId)
    if (!found) throw new AppError('not_found', 'API user not found')
    return { settings: withDefaults(found.settings), suppressedAddresses: found.suppressed }
  }

  /**
   * Replaces the user's settings (the HTTP schema has checked the members' types and the triggers'
   * names). `actor`: an operator or the admin token changing them (the audit trail); none when the user does.
   */
  async saveSettings(userId: number, settings: NotificationSettings, actor?: Actor): Promise<NotificationSettings> {
    const saved: NotificationSettings = {
      email: { ...settings.email, fromName: settings.email.fromName?.trim() || null, replyTo: settings.email.replyTo?.trim() || null },
      sms: settings.sms,
    }
    return this.audit.record(actor, { action: 'notifications.save', target: { kind: 'api_user', id: userId } }, async (tx) => {
      const problems = settingsProblems(saved)
      if (problems.length > 0) throw invalid(problems)
      await this.recipients.saveSettings(tx, userId, saved)
      return saved
    })
  }

  /**
   * A trigger's messages in a language as the user's customers would get them now (its settings
   * and branding, the sample parcel of sample-parcel.ts), for the console.
   */
  async preview(userId: number, trigger: Trigger, language: Language, now: Date): Promise<MessagePreview> {
    const [brand, settings] = await Promise.all([this.pages.brand(userId), this.settings(userId)])
    const source = sampleParcel(trigger, now)
    const carrier = carrierNamed(source.carrierCode)!
    const page = trackingPageOf(source, brand, { name: carrier.name, trackingUrl: carrier.trackingPageUrl(source.trackingNumber) ?? '' }, language)
    const pageUrl = `${PREVIEW_BASE}/t/preview`
    const email = renderEmail({ page, trigger, name: 'Alex Example', pageUrl, unsubscribeUrl: `${PREVIEW_BASE}/u/preview` })
    return {
      from: `"${senderName(settings.email.fromName, page)}" <NOTIFY_FROM>`,
      replyTo: settings.email.replyTo ?? brand.supportEmail,
      ...email,
      sms: renderSms(page, trigger, settings.email.fromName, pageUrl),
    }
  }

  /** The task's recipient (null: none); not_found for a task that is not the user's. */
  async recipient(userId: number, taskId: number): Promise<Recipient | null> {
    const recipient = await this.recipients.of(userId, taskId)
    if (recipient === undefined) throw subscriptionNotFound()
    return recipient
  }

  /** The task's recipient and messages, as GET …/{taskId} adds them to the full task (the task is the caller's: read already). */
  async ofTask(userId: number, taskId: number): Promise<{ recipient: Recipient | null; notifications: TaskMessage[] }> {
    return this.recipients.ofTask(userId, taskId)
  }

  /** Sets the task's recipient from the request's body (judged here); not_found for a task that is not the user's. */
  async setRecipient(userId: number, taskId: number, body: Parameters<typeof parseRecipient>[0]): Promise<Recipient> {
    const parsed = parseRecipient(body, '')
    if (!parsed.ok) throw invalid(parsed.details)
    const found = await this.db.transaction((tx) => this.setIn(tx, userId, [{ taskId, recipient: parsed.value }]))
    if (!found.has(taskId)) throw subscriptionNotFound()
    return parsed.value
  }

  async removeRecipient(userId: number, taskId: number): Promise<void> {
    const found = await this.db.transaction((tx) => this.recipients.remove(tx, userId, taskId))
    if (!found) throw subscriptionNotFound()
  }

  /**
   * Sets or removes (null) the recipients of the user's tasks in the caller's unit of work (a
   * subscribe's, a batch's): a few statements whatever their number. The ids of the tasks found
   * (a task that is not the user's is not).
   */
  async setIn(tx: Queryable, userId: number, items: readonly { taskId: number; recipient: Recipient | null }[]): Promise<Set<number>> {
    const found = new Set<number>()
    for (const item of items.filter((i) => i.recipient === null)) if (await this.recipients.remove(tx, userId, item.taskId)) found.add(item.taskId)
    const setting = items.filter((i): i is { taskId: number; recipient: Recipient } => i.recipient !== null)
    if (setting.length === 0) return found
    // The language of an address's unsubscribe page: its recipient's, else the shop's.
    const shopLanguage = setting.some((i) => i.recipient.language === null) ? (await this.pages.brand(userId)).defaultLanguage : 'en'
    const rows = await Promise.all(
      setting.map(async ({ taskId, recipient }) => ({
        taskId,
        recipient,
        emailHash: recipient.email === null ? null : await this.hash('email', recipient.email),
        phoneHash: recipient.phone === null ? null : await this.hash('sms', recipient.phone),
        addressLanguage: recipient.language ?? shopLanguage,
      })),
    )
    for (const taskId of await this.recipients.setMany(tx, userId, rows)) found.add(taskId)
    return found
  }

  /** What the unsubscribe page of a token shows; undefined for a token that is no address's. */
  async unsubscribeView(token: string): Promise<UnsubscribeView | undefined> {
    return this.viewOf(await this.recipients.byToken(token))
  }

  /**
   * One-click unsubscribe (RFC 8058): that shop sends that address nothing from now on. What the
   * page then shows; undefined for an unknown token.
   */
  async unsubscribe(token: string): Promise<UnsubscribeView | undefined> {
    return this.viewOf(await this.recipients.suppressByToken(token, 'unsubscribed'))
  }

  private async viewOf(address: RecipientAddress | undefined): Promise<UnsubscribeView | undefined> {
    return address && { language: address.language, unsubscribed: address.suppressed, brand: await this.pages.brand(address.userId) }
  }

  /** An address the relay refused for good (an SMTP 5xx at RCPT or DATA): never written to again by that shop. */
  async suppressRefused(userId: number, email: string, language: Language): Promise<void> {
    await this.recipients.suppress(userId, 'email', await this.hash('email', email), 'refused by the mail relay', language)
  }

  /** A number the SMS provider says opted out (Twilio's 21610): never texted again by that shop. */
  async suppressStopped(userId: number, phone: string, language: Language): Promise<void> {
    await this.recipients.suppress(userId, 'sms', await this.hash('sms', phone), SMS_STOPPED, language)
  }

  /**
   * A number replied STOP to the sending number: the provider sends it nothing more from that
   * number, whichever shop asks, so no shop that knows it tries. START undoes it (not an
   * unsubscribe by link, nor a refusal). How many shops' addresses changed.
   */
  async smsReplied(phone: string, intent: 'stop' | 'start'): Promise<number> {
    const hash = await this.hash('sms', phone)
    return intent === 'stop' ? this.recipients.stopEverywhere('sms', hash, SMS_STOPPED) : this.recipients.startEverywhere('sms', hash, SMS_STOPPED)
  }

  private async hash(channel: 'email' | 'sms', address: string): Promise<string> {
    const key = await this.secrets.get(HASH_KEY)
    const normal = channel === 'email' ? normalEmail(address) : address
    return createHmac('sha256', key).update(`${channel}:${normal}`).digest('base64url')
  }
}

/** Stored settings over the defaults: a member a later version adds reads as its default. */
function withDefaults(stored: NotificationSettings | null): NotificationSettings {
  return {
    email: { ...DEFAULT_NOTIFICATION_SETTINGS.email, ...stored?.email },
    sms: { ...DEFAULT_NOTIFICATION_SETTINGS.sms, ...stored?.sms },
  }
}
