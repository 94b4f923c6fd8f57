import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { Socket } from 'node:net'

/** A webhook receiver on loopback that records every request and answers as a test scripts it. */

export interface ReceivedWebhook {
  path: string
  headers: IncomingHttpHeaders
  body: string
  at: number
}

export interface Reply {
  status: number
  headers?: Record<string, string>
  body?: string
  /** Wait this long before answering. */
  delayMs?: number
}

/** Decides the answer to the nth request (1-based) on a path. */
export type Script = (nth: number, request: ReceivedWebhook) => Reply

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = []
  private readonly scripts = new Map<string, Script>()
  private readonly counts = new Map<string, number>()
  private readonly sockets = new Set<Socket>()
  private server: Server | undefined
  url = ''

  /** Scripts the answers of one path; unscripted paths answer 200. */
  on(path: string, script: Script): string {
    this.scripts.set(path, script)
    return `${this.url}${path}`
  }

  requests(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path)
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0]!
        const request = { path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }
        this.received.push(request)
        const nth = (this.counts.get(path) ?? 0) + 1
        this.counts.set(path, nth)
        const reply = this.scripts.get(path)?.(nth, request) ?? { status: 200, body: 'ok' }
        const answer = () => {
          if (res.destroyed) return
          res.writeHead(reply.status, reply.headers)
          res.end(reply.body ?? '')
        }
        if (reply.delayMs) setTimeout(answer, reply.delayMs)
        else answer()
      })
    })
    this.server.on('connection', (s) => {
      this.sockets.add(s)
      s.on('close', () => this.sockets.delete(s))
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    const address = this.server.address()
    if (!address || typeof address === 'string') throw new Error('no address')
    this.url = `http://127.0.0.1:${address.port}`
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }
}
