/**
 * A steady load on a service process for the fault suite: clients that subscribe new numbers one
 * after another and clients that read a task back, each answer kept with its timing, so a test can
 * say which answers came during a fault, how long each took, and which writes were acknowledged.
 */

export interface Answer {
  kind: 'subscribe' | 'query'
  sentAt: number
  answeredAt: number
  /** HTTP status, or 0 when no answer came (the connection failed). */
  status: number
  /** The envelope's data.error on a failure, or what went wrong without an answer. */
  error?: string
  /** The envelope's msg on a failure. */
  msg?: string
  retryAfter?: string | null
}

export interface LoadOptions {
  baseUrl: string
  token: string
  /** Numbers are `${prefix}${n}`. */
  prefix: string
  carriers?: string[]
  callbackUrl: string
  subscribers?: number
  readers?: number
}

export class FaultLoad {
  readonly answers: Answer[] = []
  /** Tracking number → the task id its acknowledged subscribe answered. */
  readonly acknowledged = new Map<string, number>()
  private running = false
  private clients: Promise<void>[] = []
  private seq = 0

  constructor(private readonly options: LoadOptions) {}

  start(): void {
    this.running = true
    const { subscribers = 8, readers = 2 } = this.options
    this.clients = [...Array.from({ length: subscribers }, () => this.subscriber()), ...Array.from({ length: readers }, () => this.reader())]
  }

  async stop(): Promise<void> {
    this.running = false
    await Promise.all(this.clients)
  }

  count(status: number, since = 0): number {
    return this.answers.filter((a) => a.status === status && a.sentAt >= since).length
  }

  /** Answers other than 200 and a 503 `unavailable` envelope with Retry-After. */
  unexpected(): Answer[] {
    return this.answers.filter((a) => !(a.status === 200 || (a.status === 503 && a.error === 'unavailable' && a.retryAfter)))
  }

  statuses(): Record<number, number> {
    const counts: Record<number, number> = {}
    for (const a of this.answers) counts[a.status] = (counts[a.status] ?? 0) + 1
    return counts
  }

  private headers(): Record<string, string> {
    return { authorization: `Bearer ${this.options.token}`, 'content-type': 'application/json' }
  }

  private async subscriber(): Promise<void> {
    const carriers = this.options.carriers ?? ['FEDEX']
    while (this.running) {
      const n = ++this.seq
      const trackingNumber = `${this.options.prefix}${n}`
      const body = JSON.stringify({ carrierCode: carriers[n % carriers.length], trackingNumber, callbackUrl: this.options.callbackUrl })
      const data = await this.send('subscribe', `${this.options.baseUrl}/openapi/tracking-subscriptions`, { method: 'POST', headers: this.headers(), body })
      if (data && typeof data.taskId === 'number') this.acknowledged.set(trackingNumber, data.taskId)
    }
  }

  private async reader(): Promise<void> {
    while (this.running) {
      const known = [...this.acknowledged.values()]
      if (known.length === 0) {
        await new Promise((r) => setTimeout(r, 20))
        continue
      }
      const taskId = known[Math.floor(Math.random() * known.length)]
      await this.send('query', `${this.options.baseUrl}/openapi/tracking-subscriptions?taskId=${taskId}`, { headers: this.headers() })
    }
  }

  private async send(kind: Answer['kind'], url: string, init: RequestInit): Promise<{ taskId?: number } | undefined> {
    const sentAt = Date.now()
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(120_000) })
      const text = await res.text()
      const answer: Answer = { kind, sentAt, answeredAt: Date.now(), status: res.status, retryAfter: res.headers.get('retry-after') }
      let envelope: { code?: number; data?: { taskId?: number; error?: string }; msg?: string } = {}
      try {
        envelope = JSON.parse(text) as typeof envelope
      } catch {
        answer.error = `not JSON: ${text.slice(0, 200)}`
      }
      if (res.status !== 200) {
        answer.error ??= envelope.data?.error ?? text.slice(0, 200)
        answer.msg = envelope.msg
      }
      this.answers.push(answer)
      // A client that heeds the answer a little (a real one waits Retry-After): no busy loop.
      if (res.status === 503) await new Promise((r) => setTimeout(r, 100))
      return res.status === 200 ? envelope.data : undefined
    } catch (error) {
      this.answers.push({ kind, sentAt, answeredAt: Date.now(), status: 0, error: (error as Error).message })
      // A service that does not answer at all: do not spin.
      await new Promise((r) => setTimeout(r, 50))
      return undefined
    }
  }
}
