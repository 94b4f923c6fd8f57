import { randomUUID } from 'node:crypto'
import { CarrierError, fetchOneByOne, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CachedToken } from '../cached-token'
import { CarrierHttp, failureForStatus, type CarrierResponse } from '../carrier-http'
import { isInvalidNumberError, lookupFromAnswer } from './ups.mapper'

export interface UpsConfig {
  /** The origin: https://onlinetools.ups.com (test: https://wwwcie.ups.com). */
  baseUrl: string
  clientId: string
  clientSecret: string
  timeoutMs: number
}

/**
 * UPS Track API v1: an OAuth client-credentials token shared by all requests (UPS answers 429 to
 * callers that ask for one per call), then GET /api/track/v1/details/{number}, one number a
 * request. A 401 on a track call renews the token once.
 */
export class UpsClient implements CarrierAdapter {
  static readonly maxBatchSize = 1
  readonly maxBatchSize = UpsClient.maxBatchSize
  private readonly http: CarrierHttp
  private readonly token: CachedToken

  constructor(
    private readonly config: UpsConfig,
    now: () => number = Date.now,
  ) {
    this.http = new CarrierHttp({ timeoutMs: config.timeoutMs })
    this.token = new CachedToken(() => this.requestToken(), now)
  }

  fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    return fetchOneByOne(trackingNumbers, (number) => this.fetchOne(number))
  }

  private async fetchOne(trackingNumber: string): Promise<CarrierLookup | undefined> {
    let response = await this.track(trackingNumber, await this.token.get())
    if (response.status === 401) {
      this.token.forget()
      response = await this.track(trackingNumber, await this.token.get())
    }
    // The documented not-found (404) and an invalid number (400 TV1002) will never be found.
    if (response.status === 404) return { found: false, reason: 'HTTP 404' }
    if (response.status === 400 && isInvalidNumberError(response.json)) return { found: false, reason: 'TV1002' }
    if (response.status !== 200) throw failureForStatus('UPS', response)
    if (typeof response.json !== 'object' || response.json === null || !('trackResponse' in response.json)) {
      throw new CarrierError('bad_response', 'UPS answer has no trackResponse')
    }
    return lookupFromAnswer(trackingNumber, response.json)
  }

  private track(trackingNumber: string, token: string): Promise<CarrierResponse> {
    const query = 'locale=en_US&returnSignature=false&returnMilestones=false&returnPOD=false'
    return this.http.get(`${this.config.baseUrl}/api/track/v1/details/${encodeURIComponent(trackingNumber)}?${query}`, {
      headers: { authorization: `Bearer ${token}`, transId: randomUUID().replaceAll('-', ''), transactionSrc: 'tracking-service' },
    })
  }

  private async requestToken(): Promise<{ value: string; lifetimeMs: number }> {
    const response = await this.http.post(`${this.config.baseUrl}/security/v1/oauth/token`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${this.config.clientId}:${this.config.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    })
    if (response.status !== 200) throw failureForStatus('UPS OAuth', response)
    const json = response.json as { access_token?: unknown; expires_in?: unknown } | undefined
    if (typeof json?.access_token !== 'string' || !json.access_token) throw new CarrierError('bad_response', 'UPS OAuth answer has no access_token')
    // expires_in is a string ("14399") in UPS's answers.
    const seconds = Number(json.expires_in)
    return { value: json.access_token, lifetimeMs: (Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000 }
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
