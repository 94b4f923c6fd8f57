import { CarrierError, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CachedToken } from '../cached-token'
import { CarrierHttp, failureForStatus } from '../carrier-http'
import { UPARCEL_MAX_BATCH, isTrackingAnswer, mapTrackingAnswer } from './uparcel.format'

export interface UparcelConfig {
  /** With a trailing slash, as uParcel documents it: https://www.uparcel.sg/ */
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
  private readonly base: string
  // Its lifetime is not documented: kept until a 401.
  private readonly token = new CachedToken(() => this.requestToken())

  constructor(private readonly config: UparcelConfig) {
    this.http = new CarrierHttp({ timeoutMs: config.timeoutMs })
    this.base = config.baseUrl.endsWith('/') ? config.baseUrl : `${config.baseUrl}/`
  }

  async fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    let response = await this.track(trackingNumbers, await this.token.get())
    if (response.status === 401) {
      this.token.forget()
      response = await this.track(trackingNumbers, await this.token.get())
    }
    if (response.status !== 200) throw failureForStatus('uParcel', response)
    if (!isTrackingAnswer(response.json)) throw new CarrierError('bad_response', 'uParcel answer is not a SUCCESS envelope with data.parcels')
    return mapTrackingAnswer(response.json)
  }

  private track(trackingNumbers: string[], accessToken: string) {
    return this.http.post(`${this.base}api/merchant/parcel-track-status/`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tracking_number: trackingNumbers, merchant_detail: { access_token: accessToken } }),
    })
  }

  private async requestToken(): Promise<{ value: string; lifetimeMs: undefined }> {
    const response = await this.http.post(`${this.base}api/merchant/auth/`, {
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${this.config.apiKey}:`).toString('base64')}` },
      body: JSON.stringify({ api_key: this.config.apiKey, secret_key: this.config.secretKey, api_platform: 'Open', domain_info: '' }),
    })
    if (response.status !== 200) throw failureForStatus('uParcel auth', response)
    const token = (response.json as { data?: { access_token?: unknown } } | undefined)?.data?.access_token
    if (typeof token !== 'string' || !token) throw new CarrierError('bad_response', 'uParcel auth answer has no data.access_token')
    return { value: token, lifetimeMs: undefined }
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
