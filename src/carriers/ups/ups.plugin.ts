import type { CarrierPlugin } from '../carrier-plugin'
import { mod10 } from '../check-digits'
import { IMPB_PATTERN } from '../impb'
import { UpsClient } from './ups.client'
import { UPS_STATUSES } from './ups.statuses'
import { upsSimulator } from './ups.simulator'
import { UPS_TRACK_ALERT } from './track-alert/ups-alert.pushes'

export const UPS: CarrierPlugin = {
  code: 'UPS',
  name: 'UPS',
  trackingPageUrl: (n) => `https://www.ups.com/track?tracknum=${encodeURIComponent(n)}`,
  numbersPerRequest: UpsClient.maxBatchSize,
  usesToken: true,
  formats: [
    // 1Z + shipper (6) + service (2) + package (7) + check digit over the 15 characters after 1Z.
    { name: 'UPS (1Z + 16)', pattern: /^1Z[A-Z0-9]{15}[0-9]$/, checkDigit: (n) => mod10(n.slice(2, 17), n.slice(17), 1, 2), example: '1Z5R89390357567127' },
    // Mail Innovations and SurePost labels are IMpb numbers that USPS delivers: the issuer cannot be told.
    { name: 'UPS Mail Innovations / SurePost (IMpb, delivered by USPS)', pattern: IMPB_PATTERN, example: '92748931507708513018050063' },
  ],
  statusTable: UPS_STATUSES,
  aggregatorKeys: { '17track': [100002, 100398] },
  env: {
    apiUrl: { variable: 'UPS_API_URL', fallback: 'https://onlinetools.ups.com' },
    credentials: { clientId: 'UPS_CLIENT_ID', clientSecret: 'UPS_CLIENT_SECRET' },
    // UPS publishes no rate limit; one number a request, so the budget is requests (= numbers) a second.
    requestBudget: { variable: 'UPS_REQUEST_BUDGET', fallback: { requests: 10, per: 'second' } },
    // Added after the original interface: without credentials in production it is unavailable.
    requiredInProduction: false,
  },
  createAdapter: ({ baseUrl, credentials, timeoutMs }) =>
    new UpsClient({ baseUrl, clientId: credentials.clientId!, clientSecret: credentials.clientSecret!, timeoutMs }),
  pushes: UPS_TRACK_ALERT,
  simulator: upsSimulator(),
}
