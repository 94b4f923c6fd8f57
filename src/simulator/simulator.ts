import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { gzipSync } from 'node:zlib'
import type { Shipment, ShipmentView, SimulatedCarrier, SimulationContext, SimulatorAnswer } from './simulated-carrier'
import { DESTINATION, FAULT_REPEATS, ORIGIN, STORIES, knownOnlyTo, scriptFor, type Fault, type Script } from './stories'

/**
 * A carrier simulator on loopback, speaking each carrier's wire format under `/<path>` (the
 * carriers' own simulator halves, from the registry). Each number follows the story its prefix
 * selects (stories.ts), starting when the simulator first sees it and moving one stage every
 * `stepMs`. GET /_simulator/stats counts what was asked.
 */

export interface SimulatorOptions {
  carriers: readonly SimulatedCarrier[]
  port?: number
  host?: string
  /** How long each stage of a story lasts; 0 shows every story at its last stage at once. */
  stepMs: number
  now?: () => number
  /** How long a FTIMEOUT request hangs before it is answered anyway. */
  timeoutDelayMs?: number
  /** Latency added to every track answer (a slow carrier). */
  trackDelayMs?: number
  /** Credentials to enforce, by carrier path; any non-empty ones are accepted when unset. */
  credentials?: Record<string, Record<string, string>>
  /** Carriers (by path) that refuse every connection, as a carrier that is down. */
  down?: string[]
  /**
   * Numbers whose history the caller writes instead of a story (a bench's generated lanes and
   * transit times): their view as given, whatever the clock; undefined for a number the stories
   * serve.
   */
  histories?: (trackingNumber: string) => ShipmentView | undefined
  /** The service's origin: carriers that push send their pushes there, every `pushEveryMs` (default 1 s). */
  pushTo?: string
  pushEveryMs?: number
}

export interface SimulatorStats {
  /** By carrier path. */
  carriers: Record<
    string,
    { tokenRequests: number; trackRequests: number; /** Push subscriptions asked for (UPS Track Alert). */ subscriptionRequests: number }
  >
  /** How many successful track answers carried each number. */
  fetchesByNumber: Record<string, number>
}

export class CarrierSimulator {
  private server: Server | undefined
  private readonly sockets = new Set<Socket>()
  private readonly firstSeen = new Map<string, number>()
  private readonly faultsServed = new Map<string, number>()
  private readonly byPath: Map<string, SimulatedCarrier>
  private readonly down: Set<string>
  private counters: SimulatorStats
  private readonly now: () => number
  private pushTimer: NodeJS.Timeout | undefined
  url = ''

  constructor(private readonly options: SimulatorOptions) {
    this.now = options.now ?? Date.now
    this.byPath = new Map(options.carriers.map((c) => [c.path, c]))
    this.down = new Set(options.down ?? [])
    this.counters = this.emptyStats()
  }

  /** The base URL of a carrier's simulated API (its adapter's `baseUrl`). */
  urlOf(carrier: SimulatedCarrier): string {
    return `${this.url}/${carrier.path}`
  }

  /** A carrier goes down (every request's connection is destroyed) or comes back. */
  setDown(carrier: SimulatedCarrier, down: boolean): void {
    if (down) this.down.add(carrier.path)
    else this.down.delete(carrier.path)
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.route(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500)
        res.end()
      })
    })
    this.server.on('connection', (socket) => {
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
    })
    await new Promise<void>((resolve) => this.server!.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', resolve))
    const address = this.server.address()
    if (!address || typeof address === 'string') throw new Error('simulator has no TCP address')
    this.url = `http://${this.options.host ?? '127.0.0.1'}:${address.port}`
    if (this.options.pushTo) {
      this.pushTimer = setInterval(() => void this.pushNow().catch(() => {}), this.options.pushEveryMs ?? 1000)
      this.pushTimer.unref()
    }
    return this.url
  }

  /**
   * Sends what the carriers that push have to push now to `origin` (the service's, by default
   * `pushTo`); a push the service did not take with a 2xx is sent again next time. The pushes taken.
   */
  async pushNow(origin = this.options.pushTo): Promise<number> {
    if (!origin) return 0
    let taken = 0
    for (const carrier of this.byPath.values()) {
      for (const push of carrier.pushes?.(this.contextFor(carrier)) ?? []) {
        const authorization = push.authorize ? await push.authorize(origin).catch(() => undefined) : {}
        if (!authorization) continue
        const answer = await fetch(`${origin}${push.path}`, {
          method: 'POST',
          headers: { ...push.headers, ...authorization },
          body: push.body,
          signal: AbortSignal.timeout(5000),
        }).catch(() => undefined)
        if (answer) await answer.arrayBuffer()
        if (answer?.ok) {
          push.taken()
          taken++
        }
      }
    }
    return taken
  }

  async stop(): Promise<void> {
    clearInterval(this.pushTimer)
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }

  stats(): SimulatorStats {
    return structuredClone(this.counters)
  }

  resetStats(): void {
    this.counters = this.emptyStats()
  }

  private emptyStats(): SimulatorStats {
    return {
      carriers: Object.fromEntries([...this.byPath.keys()].map((path) => [path, { tokenRequests: 0, trackRequests: 0, subscriptionRequests: 0 }])),
      fetchesByNumber: {},
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [pathname = '', search = ''] = (req.url ?? '').split('?')
    const [, segment = '', ...rest] = pathname.split('/')
    if (this.down.has(segment)) {
      req.socket.destroy()
      return
    }
    const body = await readBody(req)
    if (req.method === 'GET' && pathname === '/_simulator/stats') return send(req, res, { status: 200, body: this.stats() })
    if (req.method === 'POST' && pathname === '/_simulator/reset') {
      this.resetStats()
      return send(req, res, { status: 200, body: { ok: true } })
    }
    const carrier = this.byPath.get(segment)
    if (!carrier) return send(req, res, { status: 404, body: { error: 'no simulated carrier at this path' } })
    const path = `/${rest.join('/')}`
    if (this.options.trackDelayMs && /track/.test(path)) await new Promise((r) => setTimeout(r, this.options.trackDelayMs))
    const answer = await carrier.handle(
      { method: req.method ?? 'GET', path, query: new URLSearchParams(search), headers: req.headers, body },
      this.contextFor(carrier),
    )
    send(req, res, answer)
  }

  private contextFor(carrier: SimulatedCarrier): SimulationContext {
    const counters = this.counters.carriers[carrier.path]!
    return {
      now: this.now,
      credentials: this.options.credentials?.[carrier.path],
      countToken: () => counters.tokenRequests++,
      countTrack: () => counters.trackRequests++,
      countSubscription: () => counters.subscriptionRequests++,
      fault: (numbers) => this.serveFault(carrier, numbers),
      shipment: (number) => this.shipment(carrier, number),
    }
  }

  /** The fault to serve for this request, if one of its numbers still has one to give. */
  private takeFault(carrier: SimulatedCarrier, numbers: string[]): Fault | undefined {
    let fault: Fault | undefined
    for (const number of numbers) {
      const script = scriptFor(carrier.storyKey?.(number) ?? number)
      if (script.kind !== 'fault') continue
      const served = this.faultsServed.get(number) ?? 0
      // An expired token is refused once: the adapter's single renewal must get through.
      const repeats = script.fault === 'expired_token' ? 1 : FAULT_REPEATS
      if (served >= repeats) continue
      this.faultsServed.set(number, served + 1)
      fault ??= script.fault
    }
    return fault
  }

  private async serveFault(carrier: SimulatedCarrier, numbers: string[]): Promise<SimulatorAnswer | 'expired_token' | undefined> {
    const fault = this.takeFault(carrier, numbers)
    switch (fault) {
      case undefined:
        return undefined
      case 'rate_limited':
        return { status: 429, headers: { 'retry-after': '1' }, body: carrier.errorBody(429, 'Too many requests in a short duration.') }
      case 'server_error':
        return { status: 500, body: carrier.errorBody(500, 'We encountered an unexpected error and are working to resolve the issue.') }
      case 'garbage':
        return { status: 200, body: undefined, raw: '{"output": {"completeTrackResults": [{"trackingNumber": "' }
      case 'timeout':
        // A late answer: the adapter has given up by then.
        await new Promise((resolve) => setTimeout(resolve, this.options.timeoutDelayMs ?? 60_000))
        return undefined
      case 'expired_token':
        return 'expired_token'
    }
  }

  /** After its faults, a fault number follows the delivered story. */
  private shipment(carrier: SimulatedCarrier, trackingNumber: string): Shipment {
    const written = this.options.histories?.(trackingNumber)
    if (written) {
      this.counters.fetchesByNumber[trackingNumber] = (this.counters.fetchesByNumber[trackingNumber] ?? 0) + 1
      return { found: true, reused: false, view: written }
    }
    const key = carrier.storyKey?.(trackingNumber) ?? trackingNumber
    if (!knownOnlyTo(key, carrier.path)) return { found: false }
    const found = scriptFor(key)
    const script: Exclude<Script, { kind: 'fault' }> = found.kind === 'fault' ? { kind: 'story', story: 'delivered', reused: false } : found
    if (script.kind === 'not_found') return { found: false }
    this.counters.fetchesByNumber[trackingNumber] = (this.counters.fetchesByNumber[trackingNumber] ?? 0) + 1
    const now = this.now()
    if (!this.firstSeen.has(trackingNumber)) this.firstSeen.set(trackingNumber, now)
    const start = this.firstSeen.get(trackingNumber)!
    const story = STORIES[script.story]
    const step = this.options.stepMs
    const reached = step === 0 ? story.length - 1 : Math.min(Math.floor((now - start) / step), story.length - 1)
    const stages = story.slice(0, reached + 1)
    // Event times are fixed per number, so a refetch shows the same history.
    const times = stages.map((_, i) => new Date(step === 0 ? start - (story.length - 1 - i) * 60_000 : start + i * step))
    const estimatedDelivery = new Date(start + story.length * Math.max(step, 3_600_000) + (stages.some((s) => s.slipsEta) ? 86_400_000 : 0))
    return {
      found: true,
      reused: script.reused,
      view: { stages, times, final: reached === story.length - 1, estimatedDelivery, origin: ORIGIN, destination: DESTINATION },
    }
  }
}

/** A fresh opaque token for a simulated carrier. */
export function simulatedToken(carrier: string): string {
  return `sim-${carrier}-${randomBytes(12).toString('hex')}`
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/** JSON, gzip-compressed when the client accepts it (real carriers do). */
function send(req: IncomingMessage, res: ServerResponse, answer: SimulatorAnswer): void {
  const json = Buffer.from(answer.raw ?? JSON.stringify(answer.body))
  const headers = { 'content-type': 'application/json', ...answer.headers }
  if (answer.raw === undefined && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    res.writeHead(answer.status, { ...headers, 'content-encoding': 'gzip' })
    res.end(gzipSync(json))
  } else {
    res.writeHead(answer.status, headers)
    res.end(json)
  }
}

/** The body as JSON, undefined when it is not JSON. */
export function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T
  } catch {
    return undefined
  }
}
