import { CarrierError, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CarrierHttp } from '../carrier-http'
import { lookupsFromAnswer } from './laposte.mapper'

export interface LaPosteConfig {
  /** The origin: https://api.laposte.fr (the path /suivi/v2/idships/… is appended). */
  baseUrl: string
  apiKey: string
  timeoutMs: number
}

/** Labels in French: tasks carry no language, and French is La Poste's own (docs/carriers.md). */
const LANGUAGE = 'fr_FR'

/**
 * La Poste Suivi v2: GET /suivi/v2/idships/{A,B,…}?lang=fr_FR, up to ten numbers a request joined
 * by commas, the application's key in X-Okapi-Key (no token). Each number's outcome is in its own
 * element's returnCode, whatever the HTTP status (an unknown number alone is HTTP 404 with the
 * same envelope). Past the quota La Poste answers 429 without Retry-After: the carrier waits for
 * the next minute.
 */
export class LaPosteClient implements CarrierAdapter {
  static readonly maxBatchSize = 10
  readonly maxBatchSize = LaPosteClient.maxBatchSize
  private readonly http: CarrierHttp

  constructor(
    private readonly config: LaPosteConfig,
    now: () => number = Date.now,
  ) {
    this.http = new CarrierHttp({ carrier: 'La Poste', baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, quota: 'minute', now })
  }

  async fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    const ids = trackingNumbers.map((n) => encodeURIComponent(n.trim())).join(',')
    const response = await this.http.get(`/suivi/v2/idships/${ids}?lang=${LANGUAGE}`, {
      headers: { 'X-Okapi-Key': this.config.apiKey, accept: 'application/json' },
    })
    if (response.status === 401 || response.status === 403) {
      throw new CarrierError(
        'unauthorized',
        `La Poste refused the API key (HTTP ${response.status}): check LAPOSTE_API_KEY (the key of an application subscribed to the Suivi API)`,
      )
    }
    // Per-number outcomes travel in the answer's elements: a 404 or 400 of the whole call is one.
    if (response.status !== 200 && response.status !== 207 && response.status !== 400 && response.status !== 404) throw this.http.failure(response)
    const lookups = lookupsFromAnswer(trackingNumbers, response.json)
    if (lookups.size === 0) throw new CarrierError('bad_response', `La Poste answered HTTP ${response.status} for none of the numbers asked for`)
    return lookups
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
