import { CarrierError, fetchOneByOne, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CachedToken } from '../cached-token'
import { CarrierHttp } from '../carrier-http'
import { clientCredentials, credentialsJson } from '../oauth'
import { errorOf, lookupFromAnswer, trackedNumber } from './usps.mapper'

export interface UspsConfig {
  /** The origin: https://apis.usps.com (test environment: https://apis-tem.usps.com). */
  baseUrl: string
  clientId: string
  clientSecret: string
  timeoutMs: number
}

/** What an operator must do when USPS will not let the app track: said in /readyz and the console. */
export const USPS_NO_TRACKING_SCOPE =
  "USPS refuses tracking for this app: its token lacks the 'tracking' scope (USPS grants the Tracking API to an app on request, in its Developer Portal); retrying does not help"

/**
 * USPS Tracking API v3: an OAuth client-credentials token shared by all requests (token calls count
 * against the same hourly quota, so it is asked for once and kept for its eight hours), then
 * GET /tracking/v3/tracking/{number}?expand=DETAIL, one number a request. Not found is HTTP 400 or
 * 404 (decided by the status, not by USPS's subordinate codes, which contradict its own list). A
 * second 401 after a renewed token, or a token without the tracking scope, is the app lacking the
 * Tracking API: a configuration error, not a failed fetch worth retrying soon. Its quota is hourly.
 */
export class UspsClient implements CarrierAdapter {
  static readonly maxBatchSize = 1
  readonly maxBatchSize = UspsClient.maxBatchSize
  private readonly http: CarrierHttp
  private readonly token: CachedToken

  constructor(config: UspsConfig, now: () => number = Date.now) {
    this.http = new CarrierHttp({ carrier: 'USPS', baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, quota: 'hour', now })
    this.token = new CachedToken(async () => {
      // No scope asked for: asking for a list can narrow the token; without one it has the app's grants.
      const token = await clientCredentials(
        this.http,
        'USPS OAuth',
        { path: '/oauth2/v3/token', ...credentialsJson(config.clientId, config.clientSecret) },
        3600,
      )
      const { scope } = token.answer
      if (typeof scope === 'string' && !scope.split(/\s+/).includes('tracking')) throw new CarrierError('unauthorized', USPS_NO_TRACKING_SCOPE)
      return token
    }, now)
  }

  fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    return fetchOneByOne(trackingNumbers, (number) => this.fetchOne(number))
  }

  private async fetchOne(trackingNumber: string): Promise<CarrierLookup | undefined> {
    const response = await this.token.authorized((token) =>
      this.http.get(`/tracking/v3/tracking/${encodeURIComponent(trackedNumber(trackingNumber))}?expand=DETAIL`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      }),
    )
    if (response.status === 401) throw new CarrierError('unauthorized', USPS_NO_TRACKING_SCOPE)
    // "A status update is not yet available": pending, asked again at the usual pace.
    if (response.status === 400 || response.status === 404) {
      const { code } = errorOf(response.json)
      return { found: false, reason: `HTTP ${response.status}${code ? ` ${code}` : ''}` }
    }
    if (response.status !== 200) throw this.http.failure(response)
    const lookup = lookupFromAnswer(response.json)
    if (!lookup) throw new CarrierError('bad_response', 'USPS answer has no trackingEvents')
    return lookup
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
