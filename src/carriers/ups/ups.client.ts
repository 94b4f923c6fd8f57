import { randomUUID } from 'node:crypto'
import { CarrierError, fetchOneByOne, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CachedToken } from '../cached-token'
import { CarrierHttp } from '../carrier-http'
import { clientCredentials, credentialsBasic } from '../oauth'
import { isInvalidNumberError, lookupFromAnswer } from './ups.mapper'

/**
 * UPS's OAuth client-credentials token, kept and renewed by CachedToken (UPS answers 429 to
 * callers that ask for one per call); the Track API and Track Alert clients each hold one.
 */
export function upsToken(http: CarrierHttp, clientId: string, clientSecret: string, now: () => number): CachedToken {
  return new CachedToken(
    () => clientCredentials(http, 'UPS OAuth', { path: '/security/v1/oauth/token', ...credentialsBasic(clientId, clientSecret) }, 3600),
    now,
  )
}

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
 * request.
 */
export class UpsClient implements CarrierAdapter {
  static readonly maxBatchSize = 1
  readonly maxBatchSize = UpsClient.maxBatchSize
  private readonly http: CarrierHttp
  private readonly token: CachedToken

  constructor(config: UpsConfig, now: () => number = Date.now) {
    this.http = new CarrierHttp({ carrier: 'UPS', baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, now })
    this.token = upsToken(this.http, config.clientId, config.clientSecret, now)
  }

  fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    return fetchOneByOne(trackingNumbers, (number) => this.fetchOne(number))
  }

  private async fetchOne(trackingNumber: string): Promise<CarrierLookup | undefined> {
    const query = 'locale=en_US&returnSignature=false&returnMilestones=false&returnPOD=false'
    const response = await this.token.authorized((token) =>
      this.http.get(`/api/track/v1/details/${encodeURIComponent(trackingNumber)}?${query}`, {
        headers: { authorization: `Bearer ${token}`, transId: randomUUID().replaceAll('-', ''), transactionSrc: 'tracking-service' },
      }),
    )
    // The documented not-found (404) and an invalid number (400 TV1002) will never be found.
    if (response.status === 404) return { found: false, reason: 'HTTP 404' }
    if (response.status === 400 && isInvalidNumberError(response.json)) return { found: false, reason: 'TV1002' }
    if (response.status !== 200) throw this.http.failure(response)
    if (typeof response.json !== 'object' || response.json === null || !('trackResponse' in response.json)) {
      throw new CarrierError('bad_response', 'UPS answer has no trackResponse')
    }
    return lookupFromAnswer(trackingNumber, response.json)
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
