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

  /**
   * 17TRACK's detection: the numbers registered without a carrier, for it to choose (one quota
   * unit each it detects, which the number's registration would have cost; a number it cannot
   * tell, -18019903, costs nothing). The record of each number it detected.
   */
  async detect(trackingNumbers: readonly string[]): Promise<Map<string, string>> {
    const data = await this.call(
      'register',
      trackingNumbers.map((number) => ({ number })),
    )
    const detected = new Map<string, string>()
    for (const accepted of arr(data.accepted).map(obj)) {
      const number = str(accepted.number)
      const carrier = Number(accepted.carrier)
      const asked = trackingNumbers.find((n) => n.toUpperCase() === number.toUpperCase())
      if (asked && Number.isInteger(carrier) && carrier > 0) detected.set(asked, recordKey(carrier, asked))
    }
    return detected
  }

  private async start(endpoint: 'register' | 'retrack', records: readonly string[]): Promise<Map<string, RegistrationOutcome>> {
    const answers = answersByRecord(await this.call(endpoint, records.map(itemOf)), records)
    return outcomesOf(
      answers,
      (code) => ALREADY_TRACKING.has(code),
      (code) => QUOTA.has(code),
    )
  }

  /** Moves records to another carrier key of the same number (`changecarrier`, five free changes a number). By new record. */
  async move(moves: readonly { from: string; to: string }[]): Promise<Map<string, RegistrationOutcome>> {
    const data = await this.call(
      'changecarrier',
      moves.map(({ from, to }) => {
        const old = parseRecordKey(from)
        return { number: old.trackingNumber, carrier_old: old.carrierKey, carrier_new: parseRecordKey(to).carrierKey }
      }),
    )
    // -18019803: already under that carrier.
    return outcomesOf(
      answersByRecord(
        data,
        moves.map((m) => m.to),
      ),
      (code) => code === -18019803,
      () => false,
    )
  }

  /** Stops records (17TRACK keeps their data; stopping an already stopped one is a success). The records stopped. */
  async stop(records: readonly string[]): Promise<Set<string>> {
    const answers = answersByRecord(await this.call('stoptrack', records.map(itemOf)), records)
    return new Set([...answers].filter(([, answer]) => answer.accepted || ALREADY_STOPPED.has(answer.code)).map(([record]) => record))
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

/** 17TRACK's answer for one record of a call: accepted, or rejected with its code. */
type RecordAnswer = { accepted: true } | { accepted: false; code: number; message: string }

/**
 * A call's `accepted` and `rejected` elements matched to the records asked: an accepted element to
 * the record of its number and carrier, else (17TRACK may answer with a carrier of its own
 * correction) to the first record of its number not yet answered; a rejection names no carrier and
 * answers every record of its number not yet answered.
 */
function answersByRecord(data: Json, records: readonly string[]): Map<string, RecordAnswer> {
  const answers = new Map<string, RecordAnswer>()
  const unanswered = (number: unknown) => records.filter((r) => parseRecordKey(r).trackingNumber === str(number).toUpperCase() && !answers.has(r))
  for (const element of arr(data.accepted).map(obj)) {
    const exact = recordKey(Number(element.carrier), str(element.number))
    const record = records.includes(exact) && !answers.has(exact) ? exact : unanswered(element.number)[0]
    if (record) answers.set(record, { accepted: true })
  }
  for (const element of arr(data.rejected).map(obj)) {
    const error = obj(element.error)
    for (const record of unanswered(element.number)) answers.set(record, { accepted: false, code: Number(error.code), message: str(error.message) })
  }
  return answers
}

/** Registration outcomes of answers: accepted, or rejected with a code that `succeeded` counts as done. */
function outcomesOf(
  answers: Map<string, RecordAnswer>,
  succeeded: (code: number) => boolean,
  isQuota: (code: number) => boolean,
): Map<string, RegistrationOutcome> {
  return new Map(
    [...answers].map(([record, answer]): [string, RegistrationOutcome] => [
      record,
      answer.accepted || succeeded(answer.code)
        ? { registered: true }
        : { registered: false, code: answer.code, message: answer.message, quota: isQuota(answer.code) },
    ]),
  )
}

/** A record as 17TRACK's calls take it: the number and its carrier key. */
function itemOf(record: string): { number: string; carrier: number } {
  const { carrierKey, trackingNumber } = parseRecordKey(record)
  return { number: trackingNumber, carrier: carrierKey }
}
