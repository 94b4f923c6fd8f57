import type { CarrierPlugin } from '../carrier-plugin'
import { CanadaPostClient } from './canadapost.client'
import { CANADAPOST_FORMATS } from './canadapost.formats'
import { CANADAPOST_STATUSES } from './canadapost.statuses'
import { canadapostSimulator } from './canadapost.simulator'

export const CANADAPOST: CarrierPlugin = {
  code: 'CANADAPOST',
  name: 'Canada Post',
  trackingPageUrl: (n) => `https://www.canadapost-postescanada.ca/track-reperage/en#/details/${encodeURIComponent(n)}`,
  numbersPerRequest: CanadaPostClient.maxBatchSize,
  usesToken: false,
  formats: CANADAPOST_FORMATS,
  statusTable: CANADAPOST_STATUSES,
  aggregatorKeys: { '17track': [3041] },
  env: {
    apiUrl: { variable: 'CANADAPOST_API_URL', fallback: 'https://soa-gw.canadapost.ca' },
    credentials: { username: 'CANADAPOST_USERNAME', password: 'CANADAPOST_PASSWORD' },
    // Canada Post publishes no tracking quota: a pace it would not notice, raised by configuration.
    requestBudget: { variable: 'CANADAPOST_REQUEST_BUDGET', fallback: { requests: 2, per: 'second' } },
    requiredInProduction: false,
  },
  createAdapter: ({ baseUrl, credentials, timeoutMs }) =>
    new CanadaPostClient({ baseUrl, username: credentials.username!, password: credentials.password!, timeoutMs }),
  simulator: canadapostSimulator(),
}
