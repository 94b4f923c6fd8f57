import { CarrierError, fetchOneByOne, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CarrierHttp } from '../carrier-http'
import { serviceOf } from './dhl.formats'
import { lookupFromAnswer } from './dhl.mapper'

export interface DhlConfig {
  /** The origin: https://api-eu.dhl.com (the path /track/shipments is appended). */
  baseUrl: string
  apiKey: string
  timeoutMs: number
}

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
    now: () => number = Date.now,
  ) {
    this.http = new CarrierHttp({ carrier: 'DHL', baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, quota: 'day', now })
  }

  fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    return fetchOneByOne(trackingNumbers, (number) => this.fetchOne(number))
  }

  private async fetchOne(trackingNumber: string): Promise<CarrierLookup | undefined> {
    const query = new URLSearchParams({ trackingNumber })
    const service = serviceOf(trackingNumber)
    if (service) query.set('service', service)
    const response = await this.http.get(`/track/shipments?${query}`, { headers: { 'DHL-API-Key': this.config.apiKey, accept: 'application/json' } })
    if (response.status === 404) return { found: false, reason: 'HTTP 404' }
    if (response.status === 401 || response.status === 403) {
      throw new CarrierError('unauthorized', `DHL refused the API key (HTTP ${response.status}): check DHL_API_KEY (the app's API Key, not its secret)`)
    }
    if (response.status !== 200) throw this.http.failure(response)
    const lookup = lookupFromAnswer(trackingNumber, response.json)
    if (!lookup) throw new CarrierError('bad_response', 'DHL answer has no shipments')
    return lookup
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
