import { CarrierError, type CarrierLookup } from '../carrier'
import { CarrierHttp } from '../carrier-http'
import type { RegistrationOutcome, RouteClient } from '../carrier-route'
import { arr, obj, str, type Json } from '../json'
import { lookupsFromTrackInfo, parseRecordKey, recordKey } from './seventeentrack.mapper'

export interface SeventeenTrackConfig {
  /** The origin: https://api.17track.net (the path /track/v2.2/… is appended). */
  baseUrl: string
  apiKey: string
  timeoutMs: number
}

/** Whole-call codes that mean the key itself is refused (an operator's business, not a retry's). */
const KEY_REFUSED: Readonly<Record<number, string>> = {
  [-18010001]: 'this machine’s IP is not in the 17TRACK account’s whitelist (dashboard → Settings)',
  [-18010002]: 'the key is invalid (a new key takes up to 5 minutes to work): check SEVENTEENTRACK_API_KEY',
  [-18010004]: 'the 17TRACK account is disabled',
  [-18010005]: 'the 17TRACK plan does not include this call',
}

/** Per-number codes of `register` and `retrack` that are a success: already registered (no quota used), still tracking. */
const ALREADY_TRACKING = new Set([-18019901, -18019904])
/** Per-number codes that are the key's quota, not the number's fault: the number is asked again later. */
const QUOTA = new Set([-18019907, -18019908])
/** Per-number codes of `stoptrack` that are a success: already stopped, or never registered. */
const ALREADY_STOPPED = new Set([-18019906, -18019902])

/**
 * The 17TRACK Tracking API v2.2: POST /track/v2.2/{endpoint} with the key in `17token` and a JSON
 * array of at most 40 numbers, each with its carrier key (17TRACK's detection guesses). Every
 * answer is an envelope `{code, data: {accepted, rejected}}` to judge twice: the HTTP status and
 * the envelope's code; numbers are accepted or rejected one by one. As an adapter it reads
 * (`gettrackinfo`, free); registering and stopping, which cost or save quota, are the
 * registration service's (services/route-registration.service.ts).
 */
export class SeventeenTrackClient implements RouteClient {
  static readonly maxBatchSize = 40
  readonly maxBatchSize = SeventeenTrackClient.maxBatchSize
  private readonly http: CarrierHttp

  constructor(
    private readonly config: SeventeenTrackConfig,
    now: () => number = Date.now,
  ) {
    this.http = new CarrierHttp({ carrier: '17TRACK', baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, now })
  }

  /** The records (`recordKey`) asked, read by `gettrackinfo`. */
  async fetch(records: string[]): Promise<Map<string, CarrierLookup>> {
    const data = await this.call('gettrackinfo', records.map(itemOf))
    const lookups = lookupsFromTrackInfo(records, data)
    if (lookups.size === 0) throw new CarrierError('bad_response', '17TRACK answered for none of the numbers asked for')
    return lookups
  }

  /** Registers records (each costs one unit of the key's quota unless already registered). */
  register(records: readonly string[]): Promise<Map<string, RegistrationOutcome>> {
    return this.start('register', records)
  }

  /** Starts stopped records again (free, once a number). */
  restart(records: readonly string[]): Promise<Map<string, RegistrationOutcome>> {
    return this.start('retrack', records)
  }

  private async start(endpoint: 'register' | 'retrack', records: readonly string[]): Promise<Map<string, RegistrationOutcome>> {
    const data = await this.call(endpoint, records.map(itemOf))
    const outcomes = new Map<string, RegistrationOutcome>()
    // Matched by number: 17TRACK may answer with another carrier key than the one sent (its own correction).
    const asked = (number: unknown) => records.filter((r) => parseRecordKey(r).trackingNumber === str(number).toUpperCase() && !outcomes.has(r))
    for (const element of arr(data.accepted).map(obj)) {
      const [record] = asked(element.number)
      if (record) outcomes.set(record, { registered: true })
    }
    for (const element of arr(data.rejected).map(obj)) {
      const error = obj(element.error)
      const code = Number(error.code)
      for (const record of asked(element.number)) {
        outcomes.set(
          record,
          ALREADY_TRACKING.has(code) ? { registered: true } : { registered: false, code, message: str(error.message), quota: QUOTA.has(code) },
        )
      }
    }
    return outcomes
  }

  /** Moves records to another carrier key of the same number (`changecarrier`, five free changes a number). */
  async move(moves: readonly { from: string; to: string }[]): Promise<Map<string, RegistrationOutcome>> {
    const data = await this.call(
      'changecarrier',
      moves.map(({ from, to }) => {
        const old = parseRecordKey(from)
        return { number: old.trackingNumber, carrier_old: old.carrierKey, carrier_new: parseRecordKey(to).carrierKey }
      }),
    )
    const outcomes = new Map<string, RegistrationOutcome>()
    const movedTo = (number: unknown) => moves.filter((m) => parseRecordKey(m.to).trackingNumber === str(number).toUpperCase() && !outcomes.has(m.to))
    for (const element of arr(data.accepted).map(obj)) {
      const [move] = movedTo(element.number)
      if (move) outcomes.set(move.to, { registered: true })
    }
    for (const element of arr(data.rejected).map(obj)) {
      const error = obj(element.error)
      const code = Number(error.code)
      // -18019803: already under that carrier.
      for (const move of movedTo(element.number)) {
        outcomes.set(move.to, code === -18019803 ? { registered: true } : { registered: false, code, message: str(error.message), quota: false })
      }
    }
    return outcomes
  }

  /** Stops records (17TRACK keeps their data; stopping an already stopped one is a success). The records stopped. */
  async stop(records: readonly string[]): Promise<Set<string>> {
    const data = await this.call('stoptrack', records.map(itemOf))
    const stopped = new Set<string>()
    for (const element of arr(data.accepted).map(obj)) stopped.add(recordKey(Number(element.carrier), str(element.number)))
    for (const element of arr(data.rejected).map(obj)) {
      if (!ALREADY_STOPPED.has(Number(obj(element.error).code))) continue
      for (const record of records) if (parseRecordKey(record).trackingNumber === str(element.number).toUpperCase()) stopped.add(record)
    }
    return stopped
  }

  private async call(endpoint: 'gettrackinfo' | 'register' | 'retrack' | 'changecarrier' | 'stoptrack', body: unknown[]): Promise<Json> {
    const response = await this.http.post(`/track/v2.2/${endpoint}`, {
      headers: { '17token': this.config.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const envelope = obj(response.json)
    const code = Number(envelope.code)
    const refusal = KEY_REFUSED[code]
    if (refusal) throw new CarrierError('unauthorized', `17TRACK refused the key (${code}): ${refusal}`)
    if (response.status === 401)
      throw new CarrierError('unauthorized', '17TRACK refused the key (HTTP 401): check SEVENTEENTRACK_API_KEY and the account’s IP whitelist')
    if (response.status !== 200) throw this.http.failure(response)
    if (code === -18010003) throw new CarrierError('server_error', '17TRACK answered an internal error (-18010003)')
    if (envelope.code !== 0) throw new CarrierError('bad_response', `17TRACK refused the call (code ${String(envelope.code)})`)
    return obj(envelope.data)
  }

  close(): Promise<void> {
    return this.http.close()
  }
}

/** A record as 17TRACK's calls take it: the number and its carrier key. */
function itemOf(record: string): { number: string; carrier: number } {
  const { carrierKey, trackingNumber } = parseRecordKey(record)
  return { number: trackingNumber, carrier: carrierKey }
}
