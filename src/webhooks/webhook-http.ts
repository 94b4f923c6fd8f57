import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { Agent, buildConnector, errors, request, type Dispatcher } from 'undici'
import { parseRetryAfter } from '../domain/retry-after'
import { isPublicAddress } from './address-policy'

/** How much of a receiver's answer is kept with the attempt. */
export const RESPONSE_EXCERPT_BYTES = 2048

export type Resolver = (hostname: string) => Promise<string[]>

const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address)

export class TargetRefusedError extends Error {
  readonly code = 'TARGET_REFUSED'
}

export interface AttemptResult {
  /** 0 when no HTTP answer came back. */
  statusCode: number
  /** "" on success. */
  error: string
  responseExcerpt: string
  durationMs: number
  retryAfterMs: number | undefined
}

export interface WebhookHttpOptions {
  timeoutMs: number
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: for development and tests only. */
  allowPrivateTargets: boolean
  resolver?: Resolver
  /** Kept-alive connections per receiving host (its pinned, checked address): the most attempts a host can get at once. */
  connectionsPerHost?: number
}

/**
 * The webhook sender's HTTP client. Every new connection resolves the target itself, refuses it
 * unless every address is public (literal IPs too, whatever their spelling: the URL parser has
 * already made 2130706433 and 0177.0.0.1 into 127.0.0.1), and connects to the address it checked,
 * so a DNS answer that changes between check and connect (rebinding) cannot pass. TLS still
 * verifies the certificate against the host name. Redirects are never followed.
 */
export class WebhookHttp {
  private readonly agent: Dispatcher

  constructor(private readonly options: WebhookHttpOptions) {
    const resolver = options.resolver ?? systemResolver
    const connectDirect = buildConnector({ timeout: options.timeoutMs })
    const connect: buildConnector.connector = (connectOptions, callback) => {
      const hostname = connectOptions.hostname.replace(/^\[|\]$/g, '')
      this.pickAddress(hostname, resolver).then(
        (address) =>
          connectDirect({ ...connectOptions, hostname: address, servername: connectOptions.servername ?? (isIP(hostname) ? undefined : hostname) }, callback),
        (error: Error) => callback(error, null),
      )
    }
    this.agent = new Agent({ connect, keepAliveTimeout: 10_000, connections: options.connectionsPerHost ?? 8 })
  }

  private async pickAddress(hostname: string, resolver: Resolver): Promise<string> {
    const addresses = isIP(hostname) ? [hostname] : await resolver(hostname)
    if (addresses.length === 0) throw new Error(`${hostname} does not resolve`)
    if (!this.options.allowPrivateTargets) {
      const refused = addresses.find((a) => !isPublicAddress(a))
      if (refused) throw new TargetRefusedError(`refused: ${hostname} resolves to the non-public address ${refused}`)
    }
    return addresses[0]!
  }

  async post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now()
    const done = (partial: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...partial, durationMs: Math.round(performance.now() - started) })
    let response: Dispatcher.ResponseData
    try {
      response = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      })
    } catch (error) {
      return done({ statusCode: 0, error: describe(error, this.options.timeoutMs), responseExcerpt: '', retryAfterMs: undefined })
    }
    let excerpt = ''
    try {
      excerpt = await readExcerpt(response)
    } catch {
      // The status is what counts; a body cut short is not a failed attempt.
    }
    const statusCode = response.statusCode
    const ok = statusCode >= 200 && statusCode < 300
    return done({
      statusCode,
      error: ok ? '' : statusCode >= 300 && statusCode < 400 ? `HTTP ${statusCode} (redirects are not followed)` : `HTTP ${statusCode}`,
      responseExcerpt: excerpt,
      retryAfterMs: parseRetryAfter(response.headers['retry-after']),
    })
  }

  close(): Promise<void> {
    return this.agent.close()
  }
}

async function readExcerpt(response: Dispatcher.ResponseData): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response.body) {
    chunks.push(chunk as Buffer)
    size += (chunk as Buffer).length
    if (size >= RESPONSE_EXCERPT_BYTES) {
      response.body.destroy()
      break
    }
  }
  // Cut at a byte count, then drop a character the cut may have split.
  return Buffer.concat(chunks)
    .subarray(0, RESPONSE_EXCERPT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '')
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof TargetRefusedError) return error.message
  const e = error as Error & { code?: string; cause?: Error & { code?: string } }
  if (
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    error instanceof errors.ConnectTimeoutError ||
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError'
  ) {
    return `timeout: no answer within ${timeoutMs} ms`
  }
  if (e?.cause instanceof TargetRefusedError) return e.cause.message
  const code = e?.code ?? e?.cause?.code
  return code ? `connection failed: ${code}` : `connection failed: ${e?.message ?? String(error)}`
}
