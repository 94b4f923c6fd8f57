import nodemailer, { type Transporter } from 'nodemailer'
import type { ChannelSender, Outgoing, SendResult } from '../domain/outbox'
import { oneLine } from '../domain/email-address'
import { senderName, type Trigger, type MessagePayload } from '../domain/notifications'
import type { Language, TrackingPage } from '../domain/tracking-page'
import { renderEmail } from './email-message'

/**
 * The email channel's sender (docs/notifications.md): one message a delivery, rendered when it is
 * sent (the parcel as it is then, in the recipient's language), over SMTP with nodemailer. Its
 * Message-ID is made from the delivery's id, so a message sent twice (a worker killed between the
 * relay's answer and its record) is one message to the mail clients. What the relay says decides:
 * a 5xx at RCPT or DATA is refused for good and the address suppressed for that shop; a 4xx, a
 * timeout or a relay that cannot be reached is tried again on the schedule.
 */

export interface EmailSenderOptions {
  /** SMTP_URL: smtp://user:pass@host:port, smtps://… */
  smtpUrl: string
  /** NOTIFY_FROM: the address messages are sent from (a domain the operator has verified). */
  from: string
  /** PUBLIC_BASE_URL: where the tracking pages and /u/{token} are. */
  publicBaseUrl: string
  timeoutMs: number
  /** Connections to the relay (SMTP_CONCURRENCY): one message each at a time. */
  concurrency: number
  /** The tracking page of a token in a language (null: the shop's default); undefined when it is gone. */
  page(token: string, language: Language | null): Promise<TrackingPage | undefined>
  /** An address the relay refused for good. */
  refused(userId: number, email: string, language: Language): Promise<void>
}

/** What nodemailer's errors carry of the SMTP conversation. */
interface SmtpError {
  message?: string
  code?: string
  responseCode?: number
  command?: string
  response?: string
}

export class EmailSender implements ChannelSender<'email'> {
  readonly channel = 'email' as const
  readonly retriesUnknownOutcome = true
  private readonly transport: Transporter
  private readonly domain: string

  constructor(private readonly options: EmailSenderOptions) {
    this.transport = nodemailer.createTransport({
      url: options.smtpUrl,
      pool: true,
      maxConnections: options.concurrency,
      // A pooled connection is used for many messages; the relay decides when it is closed.
      maxMessages: Infinity,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      socketTimeout: options.timeoutMs,
    } as Parameters<typeof nodemailer.createTransport>[0])
    this.domain = options.from.slice(options.from.lastIndexOf('@') + 1)
  }

  async send(delivery: Outgoing<'email'>): Promise<SendResult> {
    const started = performance.now()
    const result = (outcome: SendResult['outcome'], statusCode: number, error: string, excerpt = ''): SendResult => ({
      outcome,
      // A relay that defers or cannot be reached is one to go easy on (host-concurrency.ts).
      answer: outcome === 'delivered' ? 'ok' : outcome === 'failed' ? 'overloaded' : 'other',
      statusCode,
      error,
      responseExcerpt: excerpt,
      durationMs: Math.round(performance.now() - started),
      retryAfterMs: undefined,
    })
    const { details } = delivery
    const email = delivery.address as string | null
    if (!email) return result('refused', 0, 'the task has no recipient with an email address any more')
    if (details.suppressed) return result('refused', 0, 'the address is unsubscribed or was refused by the relay')
    const { trigger } = JSON.parse(delivery.payload) as MessagePayload
    const page = await this.options.page(details.pageToken, details.language)
    if (!page) return result('refused', 0, 'the task is gone')
    const message = this.message(delivery, page, trigger, email)
    // The relay's answers may quote the address: never kept.
    const scrub = (text: string) => text.split(email).join('<recipient>').slice(0, 500)
    try {
      const info = (await this.transport.sendMail(message)) as { response?: string }
      return result('delivered', 250, '', scrub(info.response ?? ''))
    } catch (caught) {
      const error = caught as SmtpError
      const code = error.responseCode ?? 0
      const said = scrub(error.response ?? error.message ?? String(caught))
      if (code >= 500 && (error.command === 'RCPT TO' || error.command === 'DATA')) {
        await this.options.refused(details.userId, email, page.language)
        return result('refused', code, `refused by the relay at ${error.command}: ${said}`, said)
      }
      return result(
        'failed',
        code,
        code > 0 ? `the relay answered ${code}${error.command ? ` at ${error.command}` : ''}: ${said}` : `the relay could not be reached: ${said}`,
        said,
      )
    }
  }

  private message(delivery: Outgoing<'email'>, page: TrackingPage, trigger: Trigger, email: string) {
    const { details } = delivery
    const base = this.options.publicBaseUrl
    const unsubscribeUrl = `${base}/u/${details.unsubscribeToken}`
    const rendered = renderEmail({
      page,
      trigger,
      name: details.name,
      pageUrl: `${base}/t/${details.pageToken}`,
      unsubscribeUrl,
    })
    // Header values come from the shop and the customer: a line break would start a header of its own.
    const shopName = senderName(details.fromName, page)
    const replyTo = details.replyTo ?? page.shop.supportEmail
    return {
      from: { name: shopName, address: this.options.from },
      to: details.name ? { name: oneLine(details.name), address: email } : email,
      ...(replyTo ? { replyTo } : {}),
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      // The same on every attempt: a message that reached the relay twice is one message.
      messageId: `<${delivery.webhookId}@${this.domain}>`,
      headers: {
        'List-Unsubscribe': `<${unsubscribeUrl}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        'Auto-Submitted': 'auto-generated',
      },
    }
  }

  async close(): Promise<void> {
    this.transport.close()
  }
}
