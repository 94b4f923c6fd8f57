import { CarrierError, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CarrierHttp, failureForStatus } from '../carrier-http'
import { mapTrackResponse } from './fedex.mapper'

export interface FedexConfig {
  baseUrl: string
  clientId: string
  clientSecret: string
  timeoutMs: number
}

/** Renew a token this long before FedEx says it expires (3599 s), so none expires in flight. */
const TOKEN_MARGIN_MS = 5 * 60_000

/**
 * FedEx Track API: OAuth client credentials (a token an hour; the token endpoint locks out callers
 * that ask too often), then POST /track/v1/trackingnumbers with up to 30 numbers and detailed
 * scans. A 401 on a track call renews the token once.
 */
export class FedexClient implements CarrierAdapter {
  static readonly maxBatchSize = 30
  readonly maxBatchSize = FedexClient.maxBatchSize
  private readonly http: CarrierHttp
  private token: { value: string; expiresAt: number } | undefined
  // Concurrent requests that find no token share one token request.
  private pendingToken: Promise<string> | undefined

  constructor(
    private readonly config: FedexConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.http = new CarrierHttp({ timeoutMs: config.timeoutMs })
  }

  async fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    const body = JSON.stringify({
      includeDetailedScans: true,
      trackingInfo: trackingNumbers.map((trackingNumber) => ({ trackingNumberInfo: { trackingNumber } })),
    })
    let response = await this.track(body, await this.accessToken())
    if (response.status === 401) {
      this.token = undefined
      response = await this.track(body, await this.accessToken())
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

  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > this.now()) return this.token.value
    this.pendingToken ??= this.requestToken().finally(() => (this.pendingToken = undefined))
    return this.pendingToken
  }

  private async requestToken(): Promise<string> {
    const response = await this.http.post(`${this.config.baseUrl}/oauth/token`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: this.config.clientId, client_secret: this.config.clientSecret }).toString(),
    })
    if (response.status !== 200) throw failureForStatus('FedEx OAuth', response)
    const json = response.json as { access_token?: unknown; expires_in?: unknown } | undefined
    if (typeof json?.access_token !== 'string' || !json.access_token) throw new CarrierError('bad_response', 'FedEx OAuth answer has no access_token')
    const lifetimeMs = (typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in : 3599) * 1000
    this.token = { value: json.access_token, expiresAt: this.now() + Math.max(lifetimeMs - TOKEN_MARGIN_MS, lifetimeMs / 2) }
    return json.access_token
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
