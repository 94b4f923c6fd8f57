import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

/**
 * The built-in mail relay (docs/notifications.md): what the customer's emails go to when no
 * SMTP_URL is set, outside production, so that `npm start` shows them without a mail account and
 * nothing leaves the machine. A real SMTP server on loopback that accepts every message and keeps
 * the last KEPT of them in memory; its HTTP side lists them (`GET /`, newest first, as JSON) and
 * gives each as it was sent (`GET /{n}`, the raw message).
 */

const KEPT = 200
const MESSAGE_MAX = 1024 * 1024

export interface KeptMail {
  receivedAt: string
  from: string
  to: string[]
  raw: string
}

export class MailRelay {
  private readonly kept: KeptMail[] = []
  private received = 0
  private smtp: SMTPServer | undefined
  private http: Server | undefined

  /** smtp://127.0.0.1:{port}, once started. */
  smtpUrl = ''
  /** http://127.0.0.1:{port}/, once started: the messages kept. */
  url = ''

  async start(): Promise<void> {
    this.smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      size: MESSAGE_MAX,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('end', () => {
          this.keep({
            receivedAt: new Date().toISOString(),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          })
          callback()
        })
      },
    })
    await new Promise<void>((resolve) => this.smtp!.listen(0, '127.0.0.1', resolve))
    this.smtpUrl = `smtp://127.0.0.1:${(this.smtp.server.address() as AddressInfo).port}`
    this.http = createServer((req, res) => {
      const n = /^\/(\d+)$/.exec(req.url ?? '')?.[1]
      if (req.url === '/') {
        const list = this.kept.map((m, i) => ({ n: this.received - i, receivedAt: m.receivedAt, from: m.from, to: m.to, subject: subjectOf(m.raw) }))
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ messages: list }))
        return
      }
      const mail = n === undefined ? undefined : this.kept[this.received - Number(n)]
      if (!mail) return void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('no such message kept\n')
      res.writeHead(200, { 'content-type': 'message/rfc822' }).end(mail.raw)
    })
    await new Promise<void>((resolve) => this.http!.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/`
  }

  private keep(mail: KeptMail): void {
    this.received++
    this.kept.unshift(mail)
    if (this.kept.length > KEPT) this.kept.pop()
  }

  async stop(): Promise<void> {
    await Promise.all([
      new Promise<void>((resolve) => (this.smtp ? this.smtp.close(() => resolve()) : resolve())),
      new Promise<void>((resolve) => (this.http ? this.http.close(() => resolve()) : resolve())),
    ])
  }
}

/** The Subject header's value as written (an encoded word left as it is). */
function subjectOf(raw: string): string {
  const header = raw.slice(0, raw.indexOf('\r\n\r\n'))
  return /^Subject: (.*(?:\r\n[ \t].*)*)/im.exec(header)?.[1]?.replace(/\r\n[ \t]/g, ' ') ?? ''
}
