import { CarrierError, fetchOneByOne, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CarrierHttp, failureForStatus, type CarrierResponse } from '../carrier-http'
import { serviceOf } from './dhl.formats'
import { lookupFromAnswer } from './dhl.mapper'

export interface DhlConfig {
  /** The origin: https://api-eu.dhl.com (the path /track/shipments is appended). */
  baseUrl: string
  apiKey: string
  timeoutMs: number
}

const DAY_MS = 86_400_000

/**
 * DHL Shipment Tracking – Unified: GET /track/shipments?trackingNumber=…, one number a request,
 * the app's key in the DHL-API-Key header (no token, no Authorization header: the gateway refuses
 * both at once). Not found is HTTP 404 (new shipments for their first half hour too): pending. A
 * 429 without Retry-After is the daily quota (the default budget keeps far under the per-second
 * one): the carrier waits until midnight UTC, when DHL resets it.
 */
export class DhlClient implements CarrierAdapter {
  static readonly maxBatchSize = 1
  readonly maxBatchSize = DhlClient.maxBatchSize
  private readonly http: CarrierHttp

  constructor(
    private readonly config: DhlConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.http = new CarrierHttp({ timeoutMs: config.timeoutMs })
  }

  fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    return fetchOneByOne(trackingNumbers, (number) => this.fetchOne(number))
  }

  private async fetchOne(trackingNumber: string): Promise<CarrierLookup | undefined> {
    const response = await this.track(trackingNumber)
    if (response.status === 404) return { found: false, reason: 'HTTP 404' }
    if (response.status === 429) throw this.quotaExceeded(response)
    if (response.status === 401 || response.status === 403) {
      throw new CarrierError('unauthorized', `DHL refused the API key (HTTP ${response.status}): check DHL_API_KEY (the app's API Key, not its secret)`)
    }
    if (response.status !== 200) throw failureForStatus('DHL', response)
    const lookup = lookupFromAnswer(trackingNumber, response.json)
    if (!lookup) throw new CarrierError('bad_response', 'DHL answer has no shipments')
    return lookup
  }

  private quotaExceeded(response: CarrierResponse): CarrierError {
    const untilMidnight = DAY_MS - (this.now() % DAY_MS)
    return new CarrierError('rate_limited', 'DHL quota exceeded (HTTP 429)', response.retryAfterMs ?? untilMidnight)
  }

  private track(trackingNumber: string): Promise<CarrierResponse> {
    const query = new URLSearchParams({ trackingNumber })
    const service = serviceOf(trackingNumber)
    if (service) query.set('service', service)
    return this.http.get(`${this.config.baseUrl}/track/shipments?${query}`, { headers: { 'DHL-API-Key': this.config.apiKey, accept: 'application/json' } })
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
