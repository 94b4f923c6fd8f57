import type { CarrierPlugin } from '../carrier-plugin'
import { DhlClient } from './dhl.client'
import { DHL_FORMATS } from './dhl.formats'
import { DHL_STATUSES } from './dhl.statuses'
import { dhlSimulator } from './dhl.simulator'

export const DHL: CarrierPlugin = {
  code: 'DHL',
  name: 'DHL',
  trackingPageUrl: (n) => `https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=${encodeURIComponent(n)}`,
  numbersPerRequest: DhlClient.maxBatchSize,
  usesToken: false,
  formats: DHL_FORMATS,
  statusTable: DHL_STATUSES,
  aggregatorKeys: { '17track': [100001, 7041, 7047, 7048, 100047, 100152, 100226, 100392, 100430] },
  env: {
    apiUrl: { variable: 'DHL_API_URL', fallback: 'https://api-eu.dhl.com' },
    credentials: { apiKey: 'DHL_API_KEY' },
    // The key DHL grants first: 250 calls a day (and at most one every 5 s).
    requestBudget: { variable: 'DHL_REQUEST_BUDGET', fallback: { requests: 250, per: 'day' } },
    requiredInProduction: false,
  },
  createAdapter: ({ baseUrl, credentials, timeoutMs }) => new DhlClient({ baseUrl, apiKey: credentials.apiKey!, timeoutMs }),
  simulator: dhlSimulator(),
}
