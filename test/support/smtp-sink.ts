import type { AddressInfo } from 'node:net'
import { simpleParser, type ParsedMail } from 'mailparser'
import { SMTPServer, type SMTPServerAddress } from 'smtp-server'

/** What the relay answers a recipient: accepted, or an SMTP error (its code and text). */
export type RcptAnswer = { accept: true } | { code: number; text: string }

export interface ReceivedMail {
  /** The envelope's recipients, as RCPT TO named them. */
  to: string[]
  raw: string
  parsed: ParsedMail
}

/**
 * A real SMTP server on loopback (smtp-server), as a relay: it keeps every message it accepted,
 * parsed with mailparser, and answers each recipient as `rcpt` says (a 4xx defers, a 5xx refuses).
 */
export class SmtpSink {
  readonly received: ReceivedMail[] = []
  /** How each recipient is answered; accepted by default. */
  rcpt: (address: string) => RcptAnswer = () => ({ accept: true })
  /** Whether the relay keeps the nth message (from 1) without ever answering its DATA: a sender killed while it waits. */
  hold: (n: number) => boolean = () => false
  private held: (() => void)[] = []
  private server: SMTPServer | undefined
  private port = 0

  async start(port = 0): Promise<void> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo: (address: SMTPServerAddress, _session, callback) => {
        const answer = this.rcpt(address.address)
        if ('accept' in answer) return callback()
        callback(Object.assign(new Error(answer.text), { responseCode: answer.code }))
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8')
          simpleParser(raw)
            .then((parsed) => {
              this.received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, parsed })
              if (this.hold(this.received.length)) this.held.push(() => callback())
              else callback()
            })
            .catch(callback)
        })
      },
    })
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve))
    this.port = (this.server.server.address() as AddressInfo).port
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`
  }

  async stop(): Promise<void> {
    for (const answer of this.held.splice(0)) answer()
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
    this.server = undefined
  }
}
