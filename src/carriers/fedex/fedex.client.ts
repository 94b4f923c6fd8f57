import { CarrierError, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CachedToken } from '../cached-token'
import { CarrierHttp } from '../carrier-http'
import { clientCredentials, credentialsForm } from '../oauth'
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
 * scans.
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
    this.http = new CarrierHttp({ carrier: 'FedEx', baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, now })
    // FedEx's tokens live 3599 s.
    this.token = new CachedToken(
      () => clientCredentials(this.http, 'FedEx OAuth', { path: '/oauth/token', ...credentialsForm(config.clientId, config.clientSecret) }, 3599),
      now,
    )
  }

  async fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    const body = JSON.stringify({
      includeDetailedScans: true,
      trackingInfo: trackingNumbers.map((trackingNumber) => ({ trackingNumberInfo: { trackingNumber } })),
    })
    const response = await this.token.authorized((token) =>
      this.http.post('/track/v1/trackingnumbers', {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-locale': 'en_US' },
        body,
      }),
    )
    if (response.status !== 200) throw this.http.failure(response)
    const output = (response.json as { output?: { completeTrackResults?: unknown } } | undefined)?.output
    if (!output || !Array.isArray(output.completeTrackResults)) throw new CarrierError('bad_response', 'FedEx answer has no output.completeTrackResults')
    return mapTrackResponse(response.json)
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
