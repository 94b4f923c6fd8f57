import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { gzipSync } from 'node:zlib'
import { fedexError, fedexNotFound, fedexTrackResult, type ShipmentView } from './fedex.render'
import { DESTINATION, FAULT_REPEATS, ORIGIN, STORIES, scriptFor, type Fault, type Script } from './stories'
import { uparcelEnvelope, uparcelParcel } from './uparcel.render'

/**
 * A carrier simulator on loopback, speaking FedEx's and uParcel's wire formats: OAuth and track
 * for FedEx (under /fedex), auth and parcel-track-status for uParcel (under /uparcel/). Each
 * number follows the story its prefix selects (stories.ts), starting when the simulator first
 * sees it and moving one stage every `stepMs`. GET /_simulator/stats counts what was asked.
 */

export interface SimulatorOptions {
  port?: number
  host?: string
  /** How long each stage of a story lasts; 0 shows every story at its last stage at once. */
  stepMs: number
  now?: () => number
  /** How long a FTIMEOUT request hangs before it is answered anyway. */
  timeoutDelayMs?: number
  /** Latency added to every track answer (a slow carrier). */
  trackDelayMs?: number
  /** Credentials to enforce; any non-empty ones are accepted when unset. */
  fedex?: { clientId: string; clientSecret: string }
  uparcel?: { apiKey: string; secretKey: string }
}

export interface SimulatorStats {
  fedex: { tokenRequests: number; trackRequests: number }
  uparcel: { tokenRequests: number; trackRequests: number }
  /** How many successful track answers carried each number. */
  fetchesByNumber: Record<string, number>
}

const FEDEX_MAX = 30
const UPARCEL_MAX = 50
const TOKEN_LIFETIME_S = 3599

export class CarrierSimulator {
  private server: Server | undefined
  private readonly sockets = new Set<Socket>()
  private readonly firstSeen = new Map<string, number>()
  private readonly faultsServed = new Map<string, number>()
  private readonly fedexTokens = new Map<string, number>()
  private readonly uparcelTokens = new Set<string>()
  private counters = emptyStats()
  private readonly now: () => number
  url = ''

  constructor(private readonly options: SimulatorOptions) {
    this.now = options.now ?? Date.now
  }

  get fedexUrl(): string {
    return `${this.url}/fedex`
  }

  get uparcelUrl(): string {
    return `${this.url}/uparcel/`
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
    return this.url
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }

  stats(): SimulatorStats {
    return structuredClone(this.counters)
  }

  resetStats(): void {
    this.counters = emptyStats()
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req)
    const path = (req.url ?? '').split('?')[0]
    if (req.method === 'GET' && path === '/_simulator/stats') return send(req, res, 200, this.stats())
    if (req.method === 'POST' && path === '/_simulator/reset') {
      this.resetStats()
      return send(req, res, 200, { ok: true })
    }
    if (req.method !== 'POST') return send(req, res, 404, fedexError('NOT.FOUND.ERROR', 'The resource you requested is no longer available.'))
    if (this.options.trackDelayMs && path?.includes('track')) await new Promise((r) => setTimeout(r, this.options.trackDelayMs))
    switch (path) {
      case '/fedex/oauth/token':
        return this.fedexToken(req, res, body)
      case '/fedex/track/v1/trackingnumbers':
        return this.fedexTrack(req, res, body)
      case '/uparcel/api/merchant/auth/':
        return this.uparcelAuth(req, res, body)
      case '/uparcel/api/merchant/parcel-track-status/':
        return this.uparcelTrack(req, res, body)
      default:
        return send(req, res, 404, fedexError('NOT.FOUND.ERROR', 'The resource you requested is no longer available.'))
    }
  }

  private fedexToken(req: IncomingMessage, res: ServerResponse, body: string): void {
    this.counters.fedex.tokenRequests++
    const form = new URLSearchParams(body)
    const expected = this.options.fedex
    const ok =
      form.get('grant_type') === 'client_credentials' &&
      (expected ? form.get('client_id') === expected.clientId && form.get('client_secret') === expected.clientSecret : Boolean(form.get('client_id') && form.get('client_secret')))
    if (!ok) return send(req, res, 401, { transactionId: crypto.randomUUID(), errors: [{ code: 'NOT.AUTHORIZED.ERROR', message: 'The given client credentials were not valid. Please modify your request and try again.' }] })
    const token = `sim-fedex-${randomBytes(12).toString('hex')}`
    this.fedexTokens.set(token, this.now() + TOKEN_LIFETIME_S * 1000)
    send(req, res, 200, { access_token: token, token_type: 'bearer', expires_in: TOKEN_LIFETIME_S, scope: 'CXS' })
  }

  private async fedexTrack(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    this.counters.fedex.trackRequests++
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
    const expiresAt = token ? this.fedexTokens.get(token) : undefined
    if (!token || expiresAt === undefined || expiresAt <= this.now()) {
      return send(req, res, 401, fedexError('NOT.AUTHORIZED.ERROR', 'Access token expired. Please modify your request and try again.'))
    }
    const numbers = parseJson<{ trackingInfo?: { trackingNumberInfo?: { trackingNumber?: string } }[] }>(body)
      ?.trackingInfo?.map((t) => t.trackingNumberInfo?.trackingNumber)
      .filter((n): n is string => typeof n === 'string' && n.length > 0)
    if (!numbers || numbers.length === 0) return send(req, res, 400, fedexError('TRACKING.TRACKINGNUMBER.EMPTY', 'Please provide tracking number.'))
    if (numbers.length > FEDEX_MAX) return send(req, res, 400, fedexError('TRACKING.TRACKINGNUMBER.LIMIT', `At most ${FEDEX_MAX} tracking numbers per request.`))

    const fault = this.takeFault(numbers)
    if (fault === 'expired_token') {
      this.fedexTokens.delete(token)
      return send(req, res, 401, fedexError('NOT.AUTHORIZED.ERROR', 'Access token expired. Please modify your request and try again.'))
    }
    if (fault && (await this.serveFault(fault, req, res, 'fedex'))) return

    const completeTrackResults = numbers.map((trackingNumber) => {
      const script = this.scriptOf(trackingNumber)
      if (script.kind === 'not_found') return { trackingNumber, trackResults: [fedexNotFound(trackingNumber)] }
      this.countFetch(trackingNumber)
      const view = this.viewOf(trackingNumber, script)
      const live = fedexTrackResult(trackingNumber, view)
      if (!script.reused) return { trackingNumber, trackResults: [live] }
      // A reused number: an old, delivered shipment comes first; the newest scan decides.
      const yearsAgo = 2 * 365 * 24 * 3_600_000
      const old = fedexTrackResult(trackingNumber, { ...view, stages: STORIES.delivered, times: STORIES.delivered.map((_, i) => new Date(view.times[0]!.getTime() - yearsAgo + i * 3_600_000)), final: true })
      return { trackingNumber, trackResults: [old, live] }
    })
    send(req, res, 200, { transactionId: crypto.randomUUID(), output: { completeTrackResults, alerts: this.now() % 2 ? 'TRACKING.DATA.PARTIAL - simulated alert' : [] } })
  }

  private uparcelAuth(req: IncomingMessage, res: ServerResponse, body: string): void {
    this.counters.uparcel.tokenRequests++
    const json = parseJson<{ api_key?: string; secret_key?: string }>(body)
    const expected = this.options.uparcel
    const ok = expected ? json?.api_key === expected.apiKey && json?.secret_key === expected.secretKey : Boolean(json?.api_key && json?.secret_key)
    if (!ok) return send(req, res, 401, uparcelEnvelope(401, null, 'Unauthorized', ['Invalid api key or secret key']))
    const token = `sim-uparcel-${randomBytes(12).toString('hex')}`
    this.uparcelTokens.add(token)
    send(req, res, 200, uparcelEnvelope(200, { access_token: token }, 'Access token successfully received.'))
  }

  private async uparcelTrack(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    this.counters.uparcel.trackRequests++
    const json = parseJson<{ tracking_number?: unknown; merchant_detail?: { access_token?: string } }>(body)
    const token = json?.merchant_detail?.access_token
    if (!token || !this.uparcelTokens.has(token)) return send(req, res, 401, uparcelEnvelope(401, null, 'Unauthorized', ['Access token expired']))
    const numbers = Array.isArray(json?.tracking_number) ? json.tracking_number.filter((n): n is string => typeof n === 'string' && n.length > 0) : []
    if (numbers.length === 0 || numbers.length > UPARCEL_MAX) return send(req, res, 400, uparcelEnvelope(400, null, 'Bad request', [`tracking_number must hold 1 to ${UPARCEL_MAX} numbers`]))

    const fault = this.takeFault(numbers)
    if (fault === 'expired_token') {
      this.uparcelTokens.delete(token)
      return send(req, res, 401, uparcelEnvelope(401, null, 'Unauthorized', ['Access token expired']))
    }
    if (fault && (await this.serveFault(fault, req, res, 'uparcel'))) return

    const parcels = []
    const notFound = []
    for (const number of numbers) {
      const script = this.scriptOf(number)
      if (script.kind === 'not_found') {
        notFound.push(number)
        continue
      }
      this.countFetch(number)
      parcels.push(uparcelParcel(number, this.viewOf(number, script)))
    }
    send(req, res, 200, uparcelEnvelope(200, { parcels, not_found: notFound }, 'Tracking status retrieved.'))
  }

  /** The fault to serve for this request, if one of its numbers still has one to give. */
  private takeFault(numbers: string[]): Fault | undefined {
    let fault: Fault | undefined
    for (const number of numbers) {
      const script = scriptFor(number)
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

  /** Serves a fault; false when the request should then be answered normally (a late answer). */
  private async serveFault(fault: Fault, req: IncomingMessage, res: ServerResponse, carrier: 'fedex' | 'uparcel'): Promise<boolean> {
    switch (fault) {
      case 'rate_limited':
        res.setHeader('retry-after', '1')
        send(req, res, 429, carrier === 'fedex' ? fedexError('RATE.LIMIT.EXCEEDED', 'We have received too many requests in a short duration.') : uparcelEnvelope(429, null, 'Too many requests'))
        return true
      case 'server_error':
        send(req, res, 500, carrier === 'fedex' ? fedexError('INTERNAL.SERVER.ERROR', 'We encountered an unexpected error and are working to resolve the issue.') : uparcelEnvelope(500, null, 'Internal error'))
        return true
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{"output": {"completeTrackResults": [{"trackingNumber": "')
        return true
      case 'timeout':
        await new Promise((resolve) => setTimeout(resolve, this.options.timeoutDelayMs ?? 60_000))
        return false
      case 'expired_token':
        return false
    }
  }

  /** After its faults, a fault number follows the delivered story. */
  private scriptOf(trackingNumber: string): Exclude<Script, { kind: 'fault' }> {
    const script = scriptFor(trackingNumber)
    return script.kind === 'fault' ? { kind: 'story', story: 'delivered', reused: false } : script
  }

  private countFetch(trackingNumber: string): void {
    this.counters.fetchesByNumber[trackingNumber] = (this.counters.fetchesByNumber[trackingNumber] ?? 0) + 1
  }

  private viewOf(trackingNumber: string, script: Extract<Script, { kind: 'story' }>): ShipmentView {
    const now = this.now()
    if (!this.firstSeen.has(trackingNumber)) this.firstSeen.set(trackingNumber, now)
    const start = this.firstSeen.get(trackingNumber)!
    const story = STORIES[script.story]
    const step = this.options.stepMs
    const reached = step === 0 ? story.length - 1 : Math.min(Math.floor((now - start) / step), story.length - 1)
    const stages = story.slice(0, reached + 1)
    // Event times are fixed per number, so a refetch shows the same history.
    const times = stages.map((_, i) => new Date(step === 0 ? start - (story.length - 1 - i) * 60_000 : start + i * step))
    return { stages, times, final: reached === story.length - 1, estimatedDelivery: new Date(start + story.length * Math.max(step, 3_600_000) + (stages.some((s) => s.slipsEta) ? 86_400_000 : 0)), origin: ORIGIN, destination: DESTINATION }
  }
}

function emptyStats(): SimulatorStats {
  return { fedex: { tokenRequests: 0, trackRequests: 0 }, uparcel: { tokenRequests: 0, trackRequests: 0 }, fetchesByNumber: {} }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T
  } catch {
    return undefined
  }
}

/** JSON, gzip-compressed when the client accepts it (real carriers do). */
function send(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  const json = Buffer.from(JSON.stringify(body))
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    res.writeHead(status, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
    res.end(gzipSync(json))
  } else {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(json)
  }
}
