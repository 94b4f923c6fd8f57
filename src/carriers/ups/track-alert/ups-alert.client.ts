import { randomUUID } from 'node:crypto'
import { CarrierError } from '../../carrier'
import type { CachedToken } from '../../cached-token'
import { CarrierHttp } from '../../carrier-http'
import type { PushSettings, PushSubscriber, SubscriptionOutcome } from '../../carrier-push'
import { arr, obj, str } from '../../json'
import { upsToken } from '../ups.client'

export interface UpsAlertConfig {
  baseUrl: string
  clientId: string
  clientSecret: string
  timeoutMs: number
  settings: PushSettings
}

/** UPS Track Alert takes at most 100 numbers a subscription; 101 rejects the whole request (VSS220). */
export const ALERT_NUMBERS_PER_REQUEST = 100

/** The error of a UPS body: v2's {response: {errors}} or v1's bare {errors}. */
function firstError(body: unknown): { code: string; message: string } {
  const errors = arr(obj(obj(body).response).errors).length > 0 ? arr(obj(obj(body).response).errors) : arr(obj(body).errors)
  const error = obj(errors[0])
  return { code: str(error.code), message: str(error.message) }
}

/** "Each tracking number subscription is valid for 14 days": subscribing again renews it. */
export const ALERT_LIFETIME_MS = 14 * 86_400_000

const numberOf = (value: unknown) => str(value).toUpperCase()

/**
 * UPS Track Alert's package subscription: POST /api/track/{v1|v2}/subscription/standard/package
 * with the Track API's OAuth token, up to 100 numbers, each subscribed for 14 days. v1 carries
 * where to push and our secret (`destination`); v2 has neither (they are set in UPS's portal).
 * A 200 may subscribe only some (`invalidTrackingNumbers` are refused); a 400 listing
 * `invalidTrackingNumbers` refuses those and says nothing of the rest (asked again); any other
 * 4xx is a request UPS will never take, a 401 its credentials, a 5xx its outage.
 */
export class UpsAlertClient implements PushSubscriber {
  private readonly http: CarrierHttp
  private readonly token: CachedToken

  constructor(
    private readonly config: UpsAlertConfig,
    now: () => number = Date.now,
  ) {
    this.http = new CarrierHttp({ carrier: 'UPS Track Alert', baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, now })
    this.token = upsToken(this.http, config.clientId, config.clientSecret, now)
  }

  async subscribe(trackingNumbers: readonly string[]): Promise<Map<string, SubscriptionOutcome>> {
    if (trackingNumbers.length > ALERT_NUMBERS_PER_REQUEST) throw new Error(`UPS Track Alert takes ${ALERT_NUMBERS_PER_REQUEST} numbers a request`)
    const { version, secret, callbackUrl } = this.config.settings
    const body = {
      locale: 'en_US',
      trackingNumberList: trackingNumbers,
      ...(version === 'v1' ? { destination: { url: callbackUrl, credentialType: 'Bearer', credential: secret } } : {}),
    }
    const response = await this.token.authorized((token) =>
      this.http.post(`/api/track/${version}/subscription/standard/package`, {
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          transId: randomUUID().replaceAll('-', ''),
          transactionSrc: 'tracking-service',
        },
        body: JSON.stringify(body),
      }),
    )
    const answer = obj(response.json)
    const invalid = new Set(arr(answer.invalidTrackingNumbers).map(numberOf))
    const outcomes = new Map<string, SubscriptionOutcome>()
    if (response.status === 200) {
      const valid = new Set(arr(answer.validTrackingNumbers).map(numberOf))
      for (const number of trackingNumbers) {
        if (valid.has(number.toUpperCase())) outcomes.set(number, { subscribed: true })
        else if (invalid.has(number.toUpperCase()))
          outcomes.set(number, { subscribed: false, code: 'invalid', message: 'UPS lists it as an invalid tracking number' })
      }
      return outcomes
    }
    const error = firstError(response.json)
    if (response.status === 400 && invalid.size > 0) {
      for (const number of trackingNumbers) {
        if (invalid.has(number.toUpperCase())) outcomes.set(number, { subscribed: false, code: error.code || 'invalid', message: error.message })
      }
      return outcomes
    }
    // VSS210 (no valid number) and VSS215 (not a CIE test number) are about the numbers themselves.
    if (response.status === 400 && (error.code === 'VSS210' || error.code === 'VSS215')) {
      for (const number of trackingNumbers) outcomes.set(number, { subscribed: false, code: error.code, message: error.message })
      return outcomes
    }
    const failure = this.http.failure(response)
    throw error.code ? new CarrierError(failure.failure, `${failure.message}: ${error.code} ${error.message}`, failure.retryAfterMs) : failure
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
