import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { replyIntent } from '../domain/sms-replies'
import { twilioSignature } from '../notifications/twilio-signature'

/**
 * A fake of Twilio's Messages API (docs/simulator.md, "Twilio"): what the customer's texts go to
 * without TWILIO_* credentials outside production, and what the tests send to. It speaks Twilio's
 * shapes: `POST /2010-04-01/Accounts/{sid}/Messages.json` with Basic auth and a form body answers
 * 201 with the message resource, or Twilio's error body (401 20003, 400 21211 for a number that is
 * not one, 21610 for a number that replied STOP, 21614 for Twilio's magic non-mobile number);
 * each message taken is then reported to its StatusCallback (`sent`, then `delivered`, or
 * `undelivered` with 30006 for a number ending in 0666), signed with X-Twilio-Signature. `stop()`
 * plays a customer replying STOP to the inbound webhook. `GET /messages` lists what it took,
 * newest first. Tests may answer a request their own way (`respond`).
 */

const KEPT = 200
/** Twilio's test number that "is not a mobile number" (21614), and the number it takes as unsubscribed (21610). */
export const NOT_MOBILE = '+15005550009'
export const UNSUBSCRIBED = '+15005550004'
const E164 = /^\+[1-9][0-9]{6,14}$/

export interface FakeTwilioMessage {
  sid: string
  to: string
  from: string
  body: string
  statusCallback: string | undefined
  dateCreated: string
}

/** A test's own answer to a request: a status and body, or 'hang' (no answer until the server stops). */
export type FakeAnswer = { status: number; body: object; headers?: Record<string, string> } | 'hang'

export interface FakeTwilioOptions {
  accountSid?: string
  authToken?: string
  /** Where the customer's replies are posted (Twilio's "A message comes in" webhook of the number). */
  inboundUrl?: string
}

export class FakeTwilio {
  readonly accountSid: string
  readonly authToken: string
  inboundUrl: string | undefined
  /** A test's answer to each Messages request, before the fake's own; undefined: the fake answers. */
  respond: ((form: URLSearchParams) => FakeAnswer | undefined) | undefined
  readonly messages: FakeTwilioMessage[] = []
  /** Every Messages request, taken or not. */
  requests = 0
  private readonly stopped = new Set<string>()
  private readonly hanging = new Set<ServerResponse>()
  private readonly callbacks = new Set<Promise<unknown>>()
  private server: Server | undefined
  /** http://127.0.0.1:{port}, once started: the API's origin. */
  url = ''

  constructor(options: FakeTwilioOptions = {}) {
    this.accountSid = options.accountSid ?? `AC${randomBytes(16).toString('hex')}`
    this.authToken = options.authToken ?? randomBytes(16).toString('hex')
    this.inboundUrl = options.inboundUrl
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res))
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  /** A customer replies STOP (or any text) from `phone` to the sending number: posted, signed, to the inbound webhook; its status. */
  async reply(phone: string, to: string, body = 'STOP'): Promise<number> {
    if (!this.inboundUrl) throw new Error('the fake Twilio has no inbound URL')
    if (replyIntent(body) === 'stop') this.stopped.add(phone)
    const form = new URLSearchParams({
      ToCountry: 'US',
      SmsMessageSid: sid('SM'),
      NumMedia: '0',
      SmsSid: sid('SM'),
      SmsStatus: 'received',
      Body: body,
      To: to,
      NumSegments: '1',
      MessageSid: sid('SM'),
      AccountSid: this.accountSid,
      From: phone,
      ApiVersion: '2010-04-01',
      OptOutType: 'STOP',
    })
    return this.post(this.inboundUrl, form)
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake')
    if (req.method === 'GET' && url.pathname === '/messages') {
      return json(res, 200, { messages: this.messages.map(({ sid, to, from, body, dateCreated }) => ({ sid, to, from, body, dateCreated })) })
    }
    const path = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(url.pathname)
    if (req.method !== 'POST' || !path) return json(res, 404, twilioError(20404, 'The requested resource was not found', 404))
    this.requests++
    const expected = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`
    if (decodeURIComponent(path[1]!) !== this.accountSid || req.headers.authorization !== expected)
      return json(res, 401, twilioError(20003, 'Authenticate', 401))
    const form = new URLSearchParams(await text(req))
    const own = this.respond?.(form)
    if (own === 'hang') return void this.hanging.add(res)
    if (own) return json(res, own.status, own.body, own.headers)
    const to = form.get('To') ?? ''
    const from = form.get('From') ?? form.get('MessagingServiceSid') ?? ''
    const body = form.get('Body') ?? ''
    if (!E164.test(to)) return json(res, 400, twilioError(21211, `Invalid 'To' Phone Number: ${to}`, 400))
    if (body === '') return json(res, 400, twilioError(21602, 'Message body is required.', 400))
    if (to === NOT_MOBILE) return json(res, 400, twilioError(21614, `'To' number is not a valid mobile number`, 400))
    if (to === UNSUBSCRIBED || this.stopped.has(to)) return json(res, 400, twilioError(21610, 'Attempt to send to unsubscribed recipient', 400))
    const message: FakeTwilioMessage = {
      sid: sid('SM'),
      to,
      from,
      body,
      statusCallback: form.get('StatusCallback') ?? undefined,
      dateCreated: new Date().toUTCString(),
    }
    this.messages.unshift(message)
    if (this.messages.length > KEPT) this.messages.pop()
    json(res, 201, this.resource(message, 'queued'))
    if (message.statusCallback) this.report(message)
  }

  /** Twilio's message resource as its Messages API answers it. */
  private resource(m: FakeTwilioMessage, status: string): object {
    return {
      account_sid: this.accountSid,
      api_version: '2010-04-01',
      body: m.body,
      date_created: m.dateCreated,
      date_sent: null,
      date_updated: m.dateCreated,
      direction: 'outbound-api',
      error_code: null,
      error_message: null,
      from: m.from.startsWith('MG') ? null : m.from,
      messaging_service_sid: m.from.startsWith('MG') ? m.from : null,
      num_media: '0',
      num_segments: String(Math.ceil([...m.body].length / 153) || 1),
      price: null,
      price_unit: 'USD',
      sid: m.sid,
      status,
      subresource_uris: { media: `/2010-04-01/Accounts/${this.accountSid}/Messages/${m.sid}/Media.json` },
      to: m.to,
      uri: `/2010-04-01/Accounts/${this.accountSid}/Messages/${m.sid}.json`,
    }
  }

  /** The status callbacks of a message taken: sent, then delivered (or undelivered). */
  private report(m: FakeTwilioMessage): void {
    const callback = (status: string, errorCode?: string) =>
      new URLSearchParams({
        ...(errorCode ? { ErrorCode: errorCode } : {}),
        SmsSid: m.sid,
        SmsStatus: status,
        MessageStatus: status,
        To: m.to,
        MessageSid: m.sid,
        AccountSid: this.accountSid,
        From: m.from,
        ApiVersion: '2010-04-01',
      })
    const sending = (async () => {
      await this.post(m.statusCallback!, callback('sent'))
      await this.post(m.statusCallback!, m.to.endsWith('0666') ? callback('undelivered', '30006') : callback('delivered'))
    })().catch(() => {})
    this.callbacks.add(sending)
    void sending.finally(() => this.callbacks.delete(sending))
  }

  private async post(url: string, form: URLSearchParams): Promise<number> {
    const answer = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(this.authToken, url, form.entries()),
        'user-agent': 'TwilioProxy/1.1',
      },
      body: form.toString(),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    })
    await answer.body.dump()
    return answer.statusCode
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy()
    this.hanging.clear()
    await Promise.all([...this.callbacks])
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }
}

const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`

const twilioError = (code: number, message: string, status: number) => ({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status })

function json(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body))
}

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
