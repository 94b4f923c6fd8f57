import { CarrierError, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CachedToken } from '../cached-token'
import { CarrierHttp, failureForStatus } from '../carrier-http'
import { mapTrackResponse } from './fedex.mapper'

export interface FedexConfig {
  baseUrl: string
  clientId: string
  clientSecret: string
  timeoutMs: number
}

/**
 * FedEx Track API: OAuth client credentials (a token an hour; the token endpoint locks out callers
 * that ask too often), then POST /track/v1/trackingnumbers with up to 30 numbers and detailed
 * scans. A 401 on a track call renews the token once.
 */
export class FedexClient implements CarrierAdapter {
  static readonly maxBatchSize = 30
  readonly maxBatchSize = FedexClient.maxBatchSize
  private readonly http: CarrierHttp
  private readonly token: CachedToken

  constructor(
    private readonly config: FedexConfig,
    now: () => number = Date.now,
  ) {
    this.http = new CarrierHttp({ timeoutMs: config.timeoutMs })
    this.token = new CachedToken(() => this.requestToken(), now)
  }

  async fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    const body = JSON.stringify({
      includeDetailedScans: true,
      trackingInfo: trackingNumbers.map((trackingNumber) => ({ trackingNumberInfo: { trackingNumber } })),
    })
    let response = await this.track(body, await this.token.get())
    if (response.status === 401) {
      this.token.forget()
      response = await this.track(body, await this.token.get())
    }
    if (response.status !== 200) throw failureForStatus('FedEx', response)
    const output = (response.json as { output?: { completeTrackResults?: unknown } } | undefined)?.output
    if (!output || !Array.isArray(output.completeTrackResults)) throw new CarrierError('bad_response', 'FedEx answer has no output.completeTrackResults')
    return mapTrackResponse(response.json)
  }

  private track(body: string, token: string) {
    return this.http.post(`${this.config.baseUrl}/track/v1/trackingnumbers`, {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-locale': 'en_US' },
      body,
    })
  }

  private async requestToken(): Promise<{ value: string; lifetimeMs: number }> {
    const response = await this.http.post(`${this.config.baseUrl}/oauth/token`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: this.config.clientId, client_secret: this.config.clientSecret }).toString(),
    })
    if (response.status !== 200) throw failureForStatus('FedEx OAuth', response)
    const json = response.json as { access_token?: unknown; expires_in?: unknown } | undefined
    if (typeof json?.access_token !== 'string' || !json.access_token) throw new CarrierError('bad_response', 'FedEx OAuth answer has no access_token')
    // FedEx's tokens live 3599 s.
    return { value: json.access_token, lifetimeMs: (typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in : 3599) * 1000 }
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
