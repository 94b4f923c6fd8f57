import type { CarrierPlugin } from '../carrier-plugin'
import { GlsClient } from './gls.client'
import { GLS_FORMATS } from './gls.formats'
import { GLS_STATUSES } from './gls.statuses'
import { glsSimulator } from './gls.simulator'

export const GLS: CarrierPlugin = {
  code: 'GLS',
  name: 'GLS',
  trackingPageUrl: (n) => `https://gls-group.com/track/${encodeURIComponent(n)}`,
  numbersPerRequest: GlsClient.maxBatchSize,
  usesToken: true,
  formats: GLS_FORMATS,
  statusTable: GLS_STATUSES,
  aggregatorKeys: { '17track': [100005] },
  env: {
    apiUrl: { variable: 'GLS_API_URL', fallback: 'https://api.gls-group.net' },
    credentials: { clientId: 'GLS_CLIENT_ID', clientSecret: 'GLS_CLIENT_SECRET' },
    // GLS's default quota: 500 requests a day per app (token requests are counted apart).
    requestBudget: { variable: 'GLS_REQUEST_BUDGET', fallback: { requests: 500, per: 'day' } },
    requiredInProduction: false,
  },
  createAdapter: ({ baseUrl, credentials, timeoutMs }) =>
    new GlsClient({ baseUrl, clientId: credentials.clientId!, clientSecret: credentials.clientSecret!, timeoutMs }),
  simulator: glsSimulator(),
}
