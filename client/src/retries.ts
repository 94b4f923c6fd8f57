/** How the client waits out a 429 or a 503. */
export interface RetryOptions {
  /** Attempts after the first; 0 turns retrying off. Default 3. */
  retries?: number
  /** The longest wait the client accepts, in ms; a longer Retry-After is answered as it came. Default 60,000. */
  maxWaitMs?: number
}

const RETRIED = new Set([429, 503])

/**
 * A fetch that sends a request again after 429 (rate limited) or 503 (the database cannot serve
 * now) once the Retry-After the answer names has passed (seconds or an HTTP date; 1 s when absent).
 * Both answers come before the service did anything, so sending again is safe for every method.
 */
export function retryingFetch(fetchImpl: typeof fetch, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const retries = options.retries ?? 3
  const maxWaitMs = options.maxWaitMs ?? 60_000
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const response = await fetchImpl(attempt < retries ? request.clone() : request)
      if (!RETRIED.has(response.status) || attempt >= retries) return response
      const waitMs = retryAfterMs(response.headers.get('retry-after'), Date.now())
      if (waitMs > maxWaitMs) return response
      await response.body?.cancel()
      await new Promise((resolve) => setTimeout(resolve, waitMs))
    }
  }
}

/** Retry-After in ms: delta-seconds or an HTTP date (RFC 9110), 1 s when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number {
  if (header === null) return 1000
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000
  const at = Date.parse(header)
  return Number.isNaN(at) ? 1000 : Math.max(0, at - now)
}
