import type { CarrierPlugin } from '../carrier-plugin'
import { IMPB_PATTERN } from '../impb'
import { mod10, weightedMod11 } from '../check-digits'
import { FedexClient } from './fedex.client'
import { FEDEX_STATUSES } from './fedex.statuses'
import { fedexSimulator } from './fedex.simulator'

export const FEDEX: CarrierPlugin = {
  code: 'FEDEX',
  name: 'FedEx',
  trackingPageUrl: (n) => `https://www.fedex.com/fedextrack/?trknbr=${encodeURIComponent(n)}`,
  numbersPerRequest: FedexClient.maxBatchSize,
  usesToken: true,
  formats: [
    { name: 'FedEx Express (12 digits)', pattern: /^[0-9]{12}$/, checkDigit: (n) => weightedMod11(n, [3, 1, 7]), example: '986578788855' },
    { name: 'FedEx Ground (15 digits)', pattern: /^[0-9]{15}$/, checkDigit: (n) => mod10(n.slice(0, 14), n.slice(14), 1, 3), example: '041441760228964' },
    // 96 + SCNC + service + shipper + package + check: the Ground rule on the 15 digits inside it.
    {
      name: 'FedEx Ground 96 (22 digits)',
      pattern: /^96[0-9]{20}$/,
      checkDigit: (n) => mod10(n.slice(7, 21), n.slice(21), 1, 3),
      example: '9611020987654312345672',
    },
    // Ground Economy (formerly SmartPost) labels are IMpb numbers that USPS delivers: the issuer cannot be told.
    { name: 'FedEx Ground Economy (IMpb, delivered by USPS)', pattern: IMPB_PATTERN, example: '9261290289104185136058' },
  ],
  statusTable: FEDEX_STATUSES,
  aggregatorKeys: { '17track': [100003, 100261] },
  env: {
    apiUrl: { variable: 'FEDEX_API_URL', fallback: 'https://apis.fedex.com' },
    credentials: { clientId: 'FEDEX_CLIENT_ID', clientSecret: 'FEDEX_CLIENT_SECRET' },
    // FedEx allows 1,400 requests per 10 s per project; each process takes the share it is given.
    requestBudget: { variable: 'FEDEX_REQUEST_BUDGET', fallback: { requests: 50, per: 'second' } },
    requiredInProduction: true,
  },
  createAdapter: ({ baseUrl, credentials, timeoutMs }) =>
    new FedexClient({ baseUrl, clientId: credentials.clientId!, clientSecret: credentials.clientSecret!, timeoutMs }),
  simulator: fedexSimulator(),
}
