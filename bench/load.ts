import autocannon from 'autocannon'

export interface LoadResult {
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  non2xx: number
  errors: number
}

/** autocannon against loopback for `seconds`, with a body made per request. */
export async function load(options: {
  url: string
  method?: 'GET' | 'POST'
  connections: number
  seconds: number
  headers?: Record<string, string>
  body?: () => string
  path?: () => string
}): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        setupRequest: (request) => ({
          ...request,
          ...(options.body ? { body: options.body() } : {}),
          ...(options.path ? { path: options.path() } : {}),
        }),
      },
    ],
  })
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }
}

/**
 * `load` after an unmeasured two seconds of the same traffic: what a running service answers,
 * without its first moments (code not yet optimised by the JIT, pages the seed left cold).
 */
export async function warmLoad(options: Parameters<typeof load>[0]): Promise<LoadResult> {
  await load({ ...options, seconds: 2 })
  return load(options)
}
