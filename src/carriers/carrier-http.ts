import { promisify } from 'node:util'
import { gunzip, inflate, brotliDecompress } from 'node:zlib'
import { Agent, errors, request, type Dispatcher } from 'undici'
import { parseRetryAfter } from '../domain/retry-after'
import { CarrierError } from './carrier'
import { untilWindowEnds, type QuotaWindow } from './quota'

const gunzipAsync = promisify(gunzip)
const inflateAsync = promisify(inflate)
const brotliAsync = promisify(brotliDecompress)

/** A carrier answer larger than this is garbage, not tracking data. */
const MAX_BODY_BYTES = 16 * 1024 * 1024

export interface CarrierHttpOptions {
  /** The carrier's name, as its errors say it. */
  carrier: string
  /** The API's origin (or base path): requests name their path under it, whatever slash it ends with. */
  baseUrl: string
  /** Whole-request deadline: connect, headers and body. */
  timeoutMs: number
  /** The window the carrier counts its quota in (default: per second). */
  quota?: QuotaWindow
  now?: () => number
}

export interface CarrierResponse {
  status: number
  /** The parsed JSON body; CarrierError('bad_response') when a 2xx body is not JSON. */
  json: unknown
  retryAfterMs: number | undefined
}

/** An answer read as text (an XML carrier), decompressed and decoded as UTF-8. */
export interface CarrierTextResponse {
  status: number
  text: string
  retryAfterMs: number | undefined
}

/**
 * The carrier client kit's HTTP (docs/architecture.md, "Adding a carrier"): undici with keep-alive,
 * a deadline on everything, compressed answers accepted, paths under the carrier's base URL.
 * Transport failures become CarrierError; HTTP statuses are returned for the client to judge (a
 * 401 means "renew the token", not "give up"), and `failure` says what any other one means,
 * quota windows included.
 */
export class CarrierHttp {
  private readonly agent: Dispatcher
  private readonly base: string
  private readonly now: () => number

  constructor(private readonly options: CarrierHttpOptions) {
    this.agent = new Agent({ connectTimeout: options.timeoutMs, keepAliveTimeout: 30_000, connections: 16 })
    this.base = options.baseUrl.replace(/\/+$/, '')
    this.now = options.now ?? Date.now
  }

  post(path: string, init: { headers: Record<string, string>; body: string }): Promise<CarrierResponse> {
    return this.send('POST', path, init)
  }

  get(path: string, init: { headers: Record<string, string> }): Promise<CarrierResponse> {
    return this.send('GET', path, { ...init, body: undefined })
  }

  /** A GET whose answer is not JSON (Canada Post's XML): the client parses the text. */
  async getText(path: string, init: { headers: Record<string, string> }): Promise<CarrierTextResponse> {
    const { status, raw, retryAfterMs } = await this.exchange('GET', path, { ...init, body: undefined })
    return { status, text: raw.toString('utf8'), retryAfterMs }
  }

  /**
   * The CarrierError for an answer that is neither success nor the client's own business: past
   * the quota (Retry-After, else the end of the quota's window), the carrier failing, the
   * credentials refused, anything else. `who` names the call ("FedEx OAuth"); the carrier by default.
   */
  failure(response: Pick<CarrierResponse, 'status' | 'retryAfterMs'>, who = this.options.carrier): CarrierError {
    if (response.status === 429) {
      const window = this.options.quota ?? 'second'
      if (window === 'second') return new CarrierError('rate_limited', `${who} rate limit (HTTP 429)`, response.retryAfterMs)
      return new CarrierError('rate_limited', `${who} quota exceeded (HTTP 429)`, response.retryAfterMs ?? untilWindowEnds(window, this.now()))
    }
    if (response.status >= 500) return new CarrierError('server_error', `${who} answered HTTP ${response.status}`, response.retryAfterMs)
    if (response.status === 401 || response.status === 403) return new CarrierError('unauthorized', `${who} refused the credentials (HTTP ${response.status})`)
    return new CarrierError('bad_response', `${who} answered HTTP ${response.status}`)
  }

  private async send(method: 'GET' | 'POST', path: string, init: { headers: Record<string, string>; body: string | undefined }): Promise<CarrierResponse> {
    const { status, raw, retryAfterMs } = await this.exchange(method, path, init)
    let json: unknown
    try {
      json = raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'))
    } catch {
      if (status >= 200 && status < 300) throw new CarrierError('bad_response', `answer is not JSON (HTTP ${status})`)
      json = undefined
    }
    return { status, json, retryAfterMs }
  }

  private async exchange(
    method: 'GET' | 'POST',
    path: string,
    init: { headers: Record<string, string>; body: string | undefined },
  ): Promise<{ status: number; raw: Buffer; retryAfterMs: number | undefined }> {
    const url = `${this.base}/${path.replace(/^\/+/, '')}`
    let response: Dispatcher.ResponseData
    try {
      response = await request(url, {
        method,
        headers: { 'accept-encoding': 'gzip, deflate, br', accept: 'application/json', ...init.headers },
        body: init.body,
        dispatcher: this.agent,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      })
    } catch (error) {
      throw transportError(error)
    }
    let raw: Buffer
    try {
      raw = await readBody(response)
    } catch (error) {
      throw error instanceof CarrierError ? error : transportError(error)
    }
    return { status: response.statusCode, raw, retryAfterMs: parseRetryAfter(response.headers['retry-after']) }
  }

  async close(): Promise<void> {
    await this.agent.close()
  }
}

async function readBody(response: Dispatcher.ResponseData): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) {
      response.body.destroy()
      throw new CarrierError('bad_response', 'answer is larger than 16 MiB')
    }
    chunks.push(chunk as Buffer)
  }
  const raw = Buffer.concat(chunks)
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase()
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return await gunzipAsync(raw)
    if (encoding === 'deflate') return await inflateAsync(raw)
    if (encoding === 'br') return await brotliAsync(raw)
  } catch {
    throw new CarrierError('bad_response', `answer is not valid ${encoding}`)
  }
  return raw
}

function transportError(error: unknown): CarrierError {
  if (error instanceof CarrierError) return error
  const name = (error as Error)?.name
  if (
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    error instanceof errors.ConnectTimeoutError ||
    name === 'TimeoutError' ||
    name === 'AbortError'
  ) {
    return new CarrierError('timeout', 'the carrier did not answer in time')
  }
  return new CarrierError('network', `could not reach the carrier: ${(error as Error)?.message ?? String(error)}`)
}
