import type { CarrierRoute } from '../carrier-route'
import { routedCarrierByKey, routedCarrierOf, SEVENTEENTRACK_CARRIERS, seventeenTrackPageUrl } from './seventeentrack.carriers'
import { SeventeenTrackClient } from './seventeentrack.client'
import { parseRecordKey, readPush, recordKey } from './seventeentrack.mapper'
import { verifyPushSignature } from './seventeentrack.signature'
import { seventeenTrackSimulator } from './seventeentrack.simulator'

/** 17TRACK as a route (docs/carriers.md, "Carriers through 17TRACK"): fifty carriers, one key. */
export const SEVENTEENTRACK: CarrierRoute = {
  code: 'SEVENTEENTRACK',
  name: '17TRACK',
  label: '17track',
  carriers: SEVENTEENTRACK_CARRIERS,
  numbersPerRequest: SeventeenTrackClient.maxBatchSize,
  env: {
    apiUrl: { variable: 'SEVENTEENTRACK_API_URL', fallback: 'https://api.17track.net' },
    credentials: { apiKey: 'SEVENTEENTRACK_API_KEY' },
    // 17TRACK allows 3 requests a second a key, shared by every process: a process's share is less.
    requestBudget: { variable: 'SEVENTEENTRACK_REQUEST_BUDGET', fallback: { requests: 1, per: 'second' } },
    requiredInProduction: false,
  },
  recordOf: (carrierCode, trackingNumber) => recordKey(routedCarrierOf(carrierCode)!.key, trackingNumber),
  taskOf(record) {
    const { carrierKey, trackingNumber } = parseRecordKey(record)
    const carrier = routedCarrierByKey(carrierKey)
    return carrier ? { carrierCode: carrier.code, trackingNumber } : undefined
  },
  carrierKeyOf: (record) => parseRecordKey(record).carrierKey,
  trackingPageUrl: seventeenTrackPageUrl,
  // Without a key nothing verifies (a hash of the body and "/" alone is anyone's to compute).
  verifyPush: (rawBody, headers, credentials) => Boolean(credentials.apiKey) && verifyPushSignature(rawBody, headers.sign, credentials.apiKey!),
  readPush(body) {
    const push = readPush(body)
    return push && { event: push.event, record: recordKey(push.carrierKey, push.trackingNumber), ...(push.lookup ? { lookup: push.lookup } : {}) }
  },
  createClient: ({ baseUrl, credentials, timeoutMs }) => new SeventeenTrackClient({ baseUrl, apiKey: credentials.apiKey!, timeoutMs }),
  simulator: seventeenTrackSimulator(),
}
