import type { OutboxRepository } from '../db/outbox.repository'
import { providerFailed, replyIntent } from '../domain/sms-replies'
import type { NotificationService } from './notification.service'

/**
 * What the SMS provider calls back with (docs/notifications.md, "SMS"): a text's delivery status,
 * and a customer's reply. Both are verified by the caller against the provider's signature.
 */
export class SmsCallbackService {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly notifications: NotificationService,
    /** The provider's auth token the callbacks are signed with; undefined: SMS is not set up. */
    readonly authToken: () => Promise<string | undefined>,
  ) {}

  /** A text's status (Twilio's MessageStatus, ErrorCode); false for a message this service never sent. */
  async reported(messageId: string, status: string, errorCode: string | undefined): Promise<boolean> {
    const failure = providerFailed(status) ? `the provider reported it ${status}${errorCode ? ` (Twilio error ${errorCode})` : ''}` : null
    return this.outbox.providerReported(messageId, status, failure)
  }

  /** A customer's reply: STOP suppresses the number, START lifts that; anything else is not read. */
  async replied(from: string, body: string): Promise<void> {
    const intent = replyIntent(body)
    if (intent) await this.notifications.smsReplied(from, intent)
  }
}
