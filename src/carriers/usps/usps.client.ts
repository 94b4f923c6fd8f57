import { CarrierError, fetchOneByOne, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CachedToken } from '../cached-token'
import { CarrierHttp, failureForStatus, type CarrierResponse } from '../carrier-http'
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

const HOUR_MS = 3_600_000

/**
 * USPS Tracking API v3: an OAuth client-credentials token shared by all requests (token calls count
 * against the same hourly quota, so it is asked for once and kept for its eight hours), then
 * GET /tracking/v3/tracking/{number}?expand=DETAIL, one number a request. Not found is HTTP 400 or
 * 404 (decided by the status, not by USPS's subordinate codes, which contradict its own list). A
 * 401 renews the token once; a second 401, or a token without the tracking scope, is the app
 * lacking the Tracking API: a configuration error, not a failed fetch worth retrying soon.
 */
export class UspsClient implements CarrierAdapter {
  static readonly maxBatchSize = 1
  readonly maxBatchSize = UspsClient.maxBatchSize
  private readonly http: CarrierHttp
  private readonly token: CachedToken

  constructor(
    private readonly config: UspsConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.http = new CarrierHttp({ timeoutMs: config.timeoutMs })
    this.token = new CachedToken(() => this.requestToken(), now)
  }

  fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    return fetchOneByOne(trackingNumbers, (number) => this.fetchOne(number))
  }

  private async fetchOne(trackingNumber: string): Promise<CarrierLookup | undefined> {
    let response = await this.track(trackedNumber(trackingNumber), await this.token.get())
    if (response.status === 401) {
      this.token.forget()
      response = await this.track(trackedNumber(trackingNumber), await this.token.get())
      if (response.status === 401) throw new CarrierError('unauthorized', USPS_NO_TRACKING_SCOPE)
    }
    // "A status update is not yet available": pending, asked again at the usual pace.
    if (response.status === 400 || response.status === 404) {
      const { code } = errorOf(response.json)
      return { found: false, reason: `HTTP ${response.status}${code ? ` ${code}` : ''}` }
    }
    if (response.status === 429) throw this.quotaExceeded(response)
    if (response.status !== 200) throw failureForStatus('USPS', response)
    const lookup = lookupFromAnswer(response.json)
    if (!lookup) throw new CarrierError('bad_response', 'USPS answer has no trackingEvents')
    return lookup
  }

  /** Past the quota: Retry-After when given, else the next hour's window (the quota is hourly). */
  private quotaExceeded(response: CarrierResponse): CarrierError {
    const untilNextHour = HOUR_MS - (this.now() % HOUR_MS)
    return new CarrierError('rate_limited', 'USPS quota exceeded (HTTP 429)', response.retryAfterMs ?? untilNextHour)
  }

  private track(trackingNumber: string, token: string): Promise<CarrierResponse> {
    return this.http.get(`${this.config.baseUrl}/tracking/v3/tracking/${encodeURIComponent(trackingNumber)}?expand=DETAIL`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    })
  }

  private async requestToken(): Promise<{ value: string; lifetimeMs: number }> {
    const response = await this.http.post(`${this.config.baseUrl}/oauth2/v3/token`, {
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      // No scope asked for: asking for a list can narrow the token; without one it has the app's grants.
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: this.config.clientId, client_secret: this.config.clientSecret }),
    })
    if (response.status === 429) throw this.quotaExceeded(response)
    if (response.status !== 200) throw failureForStatus('USPS OAuth', response)
    const json = response.json as { access_token?: unknown; expires_in?: unknown; scope?: unknown } | undefined
    if (typeof json?.access_token !== 'string' || !json.access_token) throw new CarrierError('bad_response', 'USPS OAuth answer has no access_token')
    if (typeof json.scope === 'string' && !json.scope.split(/\s+/).includes('tracking')) throw new CarrierError('unauthorized', USPS_NO_TRACKING_SCOPE)
    // expires_in is a number (28799) in the spec and a string in USPS's own example.
    const seconds = Number(json.expires_in)
    return { value: json.access_token, lifetimeMs: (Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000 }
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
