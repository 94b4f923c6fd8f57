import { CarrierError, fetchOneByOne, type CarrierAdapter, type CarrierLookup } from '../carrier'
import { CarrierHttp } from '../carrier-http'
import { lookupFromDetail, readAnswer } from './canadapost.mapper'

export interface CanadaPostConfig {
  /** The origin: https://soa-gw.canadapost.ca (development keys: https://ct.soa-gw.canadapost.ca). */
  baseUrl: string
  username: string
  password: string
  timeoutMs: number
}

/** What an operator must check when Canada Post refuses the key (E002). */
export const CANADAPOST_REFUSED =
  'Canada Post refused the API key (AAA Authentication Failure): check CANADAPOST_USERNAME and CANADAPOST_PASSWORD, and that a development key is not used on the production host'

/**
 * Canada Post tracking (VIS): GET /vis/track/pin/{pin}/detail, one PIN a request, the API key as
 * HTTP Basic (no token), XML answers in English. Not found is the message 004 "No Pin History",
 * whatever the HTTP status; a refused key is E002 or a 401. Canada Post documents no quota: a 429
 * or 503 waits for its Retry-After, else a second.
 */
export class CanadaPostClient implements CarrierAdapter {
  static readonly maxBatchSize = 1
  readonly maxBatchSize = CanadaPostClient.maxBatchSize
  private readonly http: CarrierHttp
  private readonly authorization: string

  constructor(config: CanadaPostConfig, now: () => number = Date.now) {
    this.http = new CarrierHttp({ carrier: 'Canada Post', baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, now })
    this.authorization = `Basic ${Buffer.from(`${config.username}:${config.password}`).toString('base64')}`
  }

  fetch(trackingNumbers: string[]): Promise<Map<string, CarrierLookup>> {
    return fetchOneByOne(trackingNumbers, (number) => this.fetchOne(number))
  }

  private async fetchOne(pin: string): Promise<CarrierLookup | undefined> {
    const response = await this.http.getText(`/vis/track/pin/${encodeURIComponent(pin.trim())}/detail`, {
      headers: { authorization: this.authorization, accept: 'application/vnd.cpc.track-v2+xml', 'accept-language': 'en-CA' },
    })
    const answer = readAnswer(response.text)
    const codes = answer?.kind === 'messages' ? answer.messages.map((m) => m.code) : []
    if (codes.includes('004')) return { found: false, reason: '004' }
    if (response.status === 401 || response.status === 403 || codes.includes('E002')) throw new CarrierError('unauthorized', CANADAPOST_REFUSED)
    if (response.status !== 200) throw this.http.failure(response)
    if (answer?.kind !== 'detail') {
      const said = answer?.kind === 'messages' ? `: ${answer.messages.map((m) => `${m.code} ${m.description}`).join('; ')}` : ' (not tracking XML)'
      throw new CarrierError('bad_response', `Canada Post answered HTTP 200${said}`)
    }
    const lookup = lookupFromDetail(pin, answer.detail)
    if (!lookup) throw new CarrierError('bad_response', 'Canada Post answered for another PIN')
    return lookup
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
