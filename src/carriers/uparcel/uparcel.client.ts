import { CarrierError, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CachedToken } from '../cached-token'
import { CarrierHttp } from '../carrier-http'
import { UPARCEL_MAX_BATCH, isTrackingAnswer, mapTrackingAnswer } from './uparcel.format'

export interface UparcelConfig {
  /** As uParcel documents it, https://www.uparcel.sg/ (its paths follow it). */
  baseUrl: string
  apiKey: string
  secretKey: string
  timeoutMs: number
}

/**
 * uParcel: a merchant access token (its lifetime is not documented: kept until a 401, then
 * renewed once), then the tracking call with up to 50 numbers.
 */
export class UparcelClient implements CarrierAdapter {
  readonly maxBatchSize = UPARCEL_MAX_BATCH
  private readonly http: CarrierHttp
  // Its lifetime is not documented: kept until a 401.
  private readonly token = new CachedToken(() => this.requestToken())

  constructor(private readonly config: UparcelConfig) {
    this.http = new CarrierHttp({ carrier: 'uParcel', baseUrl: config.baseUrl, timeoutMs: config.timeoutMs })
  }

  async fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    const response = await this.token.authorized((accessToken) =>
      this.http.post('/api/merchant/parcel-track-status/', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tracking_number: trackingNumbers, merchant_detail: { access_token: accessToken } }),
      }),
    )
    if (response.status !== 200) throw this.http.failure(response)
    if (!isTrackingAnswer(response.json)) throw new CarrierError('bad_response', 'uParcel answer is not a SUCCESS envelope with data.parcels')
    return mapTrackingAnswer(response.json)
  }

  private async requestToken(): Promise<{ value: string; lifetimeMs: undefined }> {
    const response = await this.http.post('/api/merchant/auth/', {
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${this.config.apiKey}:`).toString('base64')}` },
      body: JSON.stringify({ api_key: this.config.apiKey, secret_key: this.config.secretKey, api_platform: 'Open', domain_info: '' }),
    })
    if (response.status !== 200) throw this.http.failure(response, 'uParcel auth')
    const token = (response.json as { data?: { access_token?: unknown } } | undefined)?.data?.access_token
    if (typeof token !== 'string' || !token) throw new CarrierError('bad_response', 'uParcel auth answer has no data.access_token')
    return { value: token, lifetimeMs: undefined }
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
