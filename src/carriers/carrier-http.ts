import { promisify } from 'node:util'
import { gunzip, inflate, brotliDecompress } from 'node:zlib'
import { Agent, errors, request, type Dispatcher } from 'undici'
import { parseRetryAfter } from '../domain/retry-after'
import { CarrierError } from './carrier'

const gunzipAsync = promisify(gunzip)
const inflateAsync = promisify(inflate)
const brotliAsync = promisify(brotliDecompress)

/** A carrier answer larger than this is garbage, not tracking data. */
const MAX_BODY_BYTES = 16 * 1024 * 1024

export interface CarrierHttpOptions {
  /** Whole-request deadline: connect, headers and body. */
  timeoutMs: number
}

export interface CarrierResponse {
  status: number
  /** The parsed JSON body; CarrierError('bad_response') when a 2xx body is not JSON. */
  json: unknown
  retryAfterMs: number | undefined
}

/**
 * The outbound HTTP of the carrier adapters: undici with keep-alive, a deadline on everything,
 * compressed answers accepted. Transport failures become CarrierError; HTTP statuses are returned
 * for the adapter to judge (a 401 means "refresh the token", not "give up").
 */
export class CarrierHttp {
  private readonly agent: Dispatcher

  constructor(private readonly options: CarrierHttpOptions) {
    this.agent = new Agent({ connectTimeout: options.timeoutMs, keepAliveTimeout: 30_000, connections: 16 })
  }

  post(url: string, init: { headers: Record<string, string>; body: string }): Promise<CarrierResponse> {
    return this.send('POST', url, init)
  }

  get(url: string, init: { headers: Record<string, string> }): Promise<CarrierResponse> {
    return this.send('GET', url, { ...init, body: undefined })
  }

  private async send(method: 'GET' | 'POST', url: string, init: { headers: Record<string, string>; body: string | undefined }): Promise<CarrierResponse> {
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
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'])
    let json: unknown
    try {
      json = raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'))
    } catch {
      if (response.statusCode >= 200 && response.statusCode < 300) throw new CarrierError('bad_response', `answer is not JSON (HTTP ${response.statusCode})`)
      json = undefined
    }
    return { status: response.statusCode, json, retryAfterMs }
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

/** The CarrierError for an answer that is neither success nor an auth problem. */
export function failureForStatus(carrier: string, response: CarrierResponse): CarrierError {
  if (response.status === 429) return new CarrierError('rate_limited', `${carrier} rate limit (HTTP 429)`, response.retryAfterMs)
  if (response.status >= 500) return new CarrierError('server_error', `${carrier} answered HTTP ${response.status}`, response.retryAfterMs)
  if (response.status === 401 || response.status === 403)
    return new CarrierError('unauthorized', `${carrier} refused the credentials (HTTP ${response.status})`)
  return new CarrierError('bad_response', `${carrier} answered HTTP ${response.status}`)
}
