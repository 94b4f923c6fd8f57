import { Agent, errors, request, type Dispatcher } from 'undici'
import type { MessagePayload } from '../domain/notifications'
import type { ChannelSender, Outgoing, Postponed, SendResult } from '../domain/outbox'
import { quietUntil } from '../domain/quiet-hours'
import { parseRetryAfter } from '../domain/retry-after'
import type { Language, TrackingPage } from '../domain/tracking-page'
import { renderSms } from './sms-message'

/**
 * The SMS channel's sender through Twilio's Messages API (docs/notifications.md, "SMS"): one text a
 * delivery, made when it is sent (the parcel as it is then, in the recipient's language). Before
 * it goes: not a text whose milestone the parcel has left (dropped), none in the destination's
 * quiet hours (postponed, no attempt counted). A text is never sent twice: when Twilio's answer
 * does not say whether it took it (a timeout after the request went, a 5xx), the delivery fails
 * for good; only what Twilio refused before taking it (429, a connection that never opened, its
 * credentials refused) is tried again. Its delivery status comes later, by its status callback.
 */

export interface TwilioOptions {
  accountSid: string
  authToken: string
  /** TWILIO_FROM: a number in E.164, or a Messaging Service's sid (MG…). */
  from: string
  /** Twilio's API origin (https://api.twilio.com; the simulator's in development and tests). */
  apiUrl: string
  /** PUBLIC_BASE_URL: where the tracking pages and the status callback are. */
  publicBaseUrl: string
  timeoutMs: number
  /** The clock the quiet hours are read on. */
  now?: () => Date
  page(token: string, language: Language | null): Promise<TrackingPage | undefined>
  /** The zones the number may be in (phone-zones.ts). */
  zones(phone: string): Promise<string[]>
  /** A number Twilio says has replied STOP (error 21610): never texted again by that shop. */
  stopped(userId: number, phone: string, language: Language): Promise<void>
}

/** The path of a text's status callback: its delivery's message id names it. */
export const smsStatusPath = (messageId: string): string => `/sms/twilio/status/${encodeURIComponent(messageId)}`

/** Twilio's error body: `{code, message, more_info, status}`. */
interface TwilioError {
  code?: number
  message?: string
}

// Any other 4xx is about this text or this number (21211 not a valid number, 21614 not a mobile,
// 21408 no permission for the region…): refused for good. 21610: the number replied STOP.
const UNSUBSCRIBED = 21610
const EXCERPT_MAX = 500

export class TwilioSmsSender implements ChannelSender<'sms'> {
  readonly channel = 'sms' as const
  readonly retriesUnknownOutcome = false
  private readonly agent: Dispatcher
  private readonly messagesUrl: string
  private readonly authorization: string
  private readonly now: () => Date

  constructor(private readonly options: TwilioOptions) {
    this.agent = new Agent({ connectTimeout: options.timeoutMs, keepAliveTimeout: 30_000, connections: 8 })
    this.messagesUrl = `${options.apiUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`
    this.authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`
    this.now = options.now ?? (() => new Date())
  }

  async send(delivery: Outgoing<'sms'>): Promise<SendResult | Postponed> {
    const started = performance.now()
    const result = (
      outcome: SendResult['outcome'],
      statusCode: number,
      error: string,
      excerpt = '',
      retryAfterMs?: number,
      providerId?: string,
    ): SendResult => ({
      outcome,
      answer: outcome === 'delivered' ? 'ok' : outcome === 'failed' ? 'overloaded' : 'other',
      statusCode,
      error,
      responseExcerpt: excerpt.slice(0, EXCERPT_MAX),
      durationMs: Math.round(performance.now() - started),
      retryAfterMs,
      ...(providerId ? { providerId } : {}),
    })
    const { details } = delivery
    const phone = delivery.address as string | null
    if (!phone) return result('refused', 0, 'the task has no recipient with a phone number any more')
    if (details.suppressed) return result('refused', 0, 'the number replied STOP or was refused by the provider')
    const { trigger } = JSON.parse(delivery.payload) as MessagePayload
    if (details.milestone !== trigger) return result('refused', 0, `not sent: the parcel had moved on to ${details.milestone} before it could go`)
    const until = quietUntil(await this.options.zones(phone), this.now())
    if (until) return { postponedUntil: until }
    const page = await this.options.page(details.pageToken, details.language)
    if (!page) return result('refused', 0, 'the task is gone')
    const text = renderSms(page, trigger, details.fromName, `${this.options.publicBaseUrl}/t/${details.pageToken}`)
    const form = new URLSearchParams({
      To: phone,
      [this.options.from.startsWith('MG') ? 'MessagingServiceSid' : 'From']: this.options.from,
      Body: text,
      StatusCallback: `${this.options.publicBaseUrl}${smsStatusPath(delivery.webhookId)}`,
    })
    // Twilio's answers quote the number: never kept.
    const scrub = (said: string) => said.split(phone).join('<recipient>')
    let answer: Dispatcher.ResponseData
    try {
      answer = await request(this.messagesUrl, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { authorization: this.authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      })
    } catch (caught) {
      if (neverReached(caught)) return result('failed', 0, `Twilio could not be reached: ${describe(caught)}`)
      return result('refused', 0, `outcome unknown (${describe(caught)}): an SMS is not sent again when it may have gone`)
    }
    const said = await answer.body.text().catch(() => '')
    const status = answer.statusCode
    if (status >= 200 && status < 300) {
      const sid = jsonOf<{ sid?: string }>(said)?.sid
      return result('delivered', status, '', `${sid ?? ''} ${jsonOf<{ status?: string }>(said)?.status ?? ''}`.trim(), undefined, sid)
    }
    const error = jsonOf<TwilioError>(said)
    const what = scrub(error?.code ? `Twilio error ${error.code}: ${error.message ?? ''}` : said.slice(0, 200))
    if (status >= 500)
      return result('refused', status, `outcome unknown (Twilio answered ${status}): an SMS is not sent again when it may have gone. ${what}`, what)
    if (status === 429) return result('failed', status, `Twilio is rate-limiting: ${what}`, what, parseRetryAfter(answer.headers['retry-after']))
    if (status === 401 || status === 403) return result('failed', status, `Twilio refused the credentials: ${what}`, what)
    if (error?.code === UNSUBSCRIBED) await this.options.stopped(details.userId, phone, page.language)
    return result('refused', status, what, what)
  }

  async close(): Promise<void> {
    await this.agent.close()
  }
}

function jsonOf<T>(text: string): T | undefined {
  try {
    const parsed = JSON.parse(text) as unknown
    return typeof parsed === 'object' && parsed !== null ? (parsed as T) : undefined
  } catch {
    return undefined
  }
}

/** A failure before the request could have reached Twilio: no connection was ever made. */
function neverReached(error: unknown): boolean {
  if (error instanceof errors.ConnectTimeoutError) return true
  const code = (error as { code?: string; cause?: { code?: string } }).code ?? (error as { cause?: { code?: string } }).cause?.code
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH'
}

function describe(error: unknown): string {
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) return 'no answer in time'
  const { code, message } = error as { code?: string; message?: string }
  return code ?? message ?? String(error)
}
