import { CarrierError, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CachedToken } from '../cached-token'
import { CarrierHttp } from '../carrier-http'
import { clientCredentials, credentialsBasic } from '../oauth'
import { lookupsFromAnswer } from './gls.mapper'

export interface GlsConfig {
  /** The origin: https://api.gls-group.net (the sandbox, https://api-sandbox.gls-group.net, serves test data). */
  baseUrl: string
  clientId: string
  clientSecret: string
  timeoutMs: number
}

/** What an operator must check when GLS refuses the app (a 401 may even come as HTML). */
export const GLS_REFUSED =
  'GLS refused the app (HTTP 401 with a fresh token): check GLS_CLIENT_ID and GLS_CLIENT_SECRET, and that the app has the Track And Trace product in the GLS developer portal'

/**
 * GLS Track And Trace V1: an OAuth client-credentials token (Basic, up to four hours, its own
 * quota of 100,000 a day) shared by all requests, then
 * GET /track-and-trace-v1/tracking/simple/trackids/{A,B,…}, up to ten numbers a request (eleven
 * fail whole), texts in English. Not found is an element of a 200 answer. Past the quota (500
 * requests a day by default) GLS answers 429 without Retry-After: the carrier waits until
 * midnight UTC.
 */
export class GlsClient implements CarrierAdapter {
  static readonly maxBatchSize = 10
  readonly maxBatchSize = GlsClient.maxBatchSize
  private readonly http: CarrierHttp
  private readonly token: CachedToken

  constructor(config: GlsConfig, now: () => number = Date.now) {
    this.http = new CarrierHttp({ carrier: 'GLS', baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, quota: 'day', now })
    this.token = new CachedToken(
      () => clientCredentials(this.http, 'GLS OAuth', { path: '/oauth2/v2/token', ...credentialsBasic(config.clientId, config.clientSecret) }, 3600),
      now,
    )
  }

  async fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    const ids = trackingNumbers.map((n) => encodeURIComponent(n.trim())).join(',')
    const response = await this.token.authorized((token) =>
      this.http.get(`/track-and-trace-v1/tracking/simple/trackids/${ids}?showEvents=true`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'accept-language': 'EN' },
      }),
    )
    if (response.status === 401 || response.status === 403) throw new CarrierError('unauthorized', GLS_REFUSED)
    // A 404 is a wrong URL (an unknown parcel is an element of a 200): http.failure says so.
    if (response.status !== 200) throw this.http.failure(response)
    if (typeof response.json !== 'object' || response.json === null || !Array.isArray((response.json as { parcels?: unknown }).parcels)) {
      throw new CarrierError('bad_response', 'GLS answer has no parcels')
    }
    return lookupsFromAnswer(trackingNumbers, response.json)
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
