import type { CarrierPushes } from '../../carrier-push'
import { grantAlertToken, verifyAlertPush } from './ups-alert.auth'
import { ALERT_LIFETIME_MS, ALERT_NUMBERS_PER_REQUEST, UpsAlertClient } from './ups-alert.client'
import { readAlertEvent } from './ups-alert.mapper'

/** UPS Track Alert (docs/carriers.md, "UPS Track Alert"): UPS pushes each new scan of a subscribed number for 14 days. */
export const UPS_TRACK_ALERT: CarrierPushes = {
  label: 'ups',
  name: 'UPS Track Alert',
  envPrefix: 'UPS_TRACK_ALERT',
  // v2 since 2026-07-01 (OAuth to our token endpoint); v1 carries our secret in the subscription.
  versions: ['v2', 'v1'],
  numbersPerRequest: ALERT_NUMBERS_PER_REQUEST,
  lifetimeMs: ALERT_LIFETIME_MS,
  readPush(body) {
    const event = readAlertEvent(body)
    return event && { event: 'TRACKING_EVENT', record: event.trackingNumber, lookup: event.lookup }
  },
  verifyPush: verifyAlertPush,
  grantToken: grantAlertToken,
  createSubscriber: ({ baseUrl, credentials, timeoutMs }, settings) =>
    new UpsAlertClient({ baseUrl, clientId: credentials.clientId!, clientSecret: credentials.clientSecret!, timeoutMs, settings }),
}
