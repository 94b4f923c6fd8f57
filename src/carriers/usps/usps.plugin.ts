import type { CarrierPlugin } from '../carrier-plugin'
import { mod10, s10Check } from '../check-digits'
import { impbCheck, impbReadings } from '../impb'
import { UspsClient } from './usps.client'
import { USPS_STATUSES } from './usps.statuses'
import { uspsSimulator } from './usps.simulator'

/** A routed IMpb is valid when one of its readings (420 + ZIP or ZIP+4) passes the IMpb check. */
const routedCheck = (number: string) => impbReadings(number).some(impbCheck)

export const USPS: CarrierPlugin = {
  code: 'USPS',
  name: 'USPS',
  trackingPageUrl: (n) => `https://tools.usps.com/go/TrackConfirmAction?tLabels=${encodeURIComponent(n)}`,
  numbersPerRequest: UspsClient.maxBatchSize,
  usesToken: true,
  formats: [
    { name: 'USPS IMpb (22 digits)', pattern: /^9[1-5][0-9]{20}$/, checkDigit: impbCheck, example: '9400109104250532908587' },
    { name: 'USPS IMpb (26 digits)', pattern: /^9[2-5][0-9]{24}$/, checkDigit: impbCheck, example: '92026124161170148800003176' },
    {
      name: 'USPS routed IMpb (420 + ZIP, 30 digits)',
      pattern: /^420[0-9]{5}9[1-5][0-9]{20}$/,
      checkDigit: routedCheck,
      example: '420117419361289691090029427113',
    },
    {
      name: 'USPS routed IMpb (420 + ZIP, 34 digits)',
      pattern: /^420(?:[0-9]{9}9[1-5][0-9]{20}|[0-9]{5}9[2-5][0-9]{24})$/,
      checkDigit: routedCheck,
      example: '4203278000009205596900893430673167',
    },
    // Older labels: the IMpb rule on the first 19 digits, or on them behind the application identifier 91.
    {
      name: 'USPS (20 digits)',
      pattern: /^(?!00)[0-9]{20}$/,
      checkDigit: (n) => mod10(n.slice(0, 19), n.slice(19), 3, 1) || impbCheck(`91${n}`),
      example: '03071790000523483741',
    },
    { name: 'UPU S10 (…US)', pattern: /^[A-Z]{2}[0-9]{9}US$/, checkDigit: s10Check, example: 'EA123456785US' },
  ],
  statusTable: USPS_STATUSES,
  aggregatorKeys: { '17track': [21051] },
  env: {
    apiUrl: { variable: 'USPS_API_URL', fallback: 'https://apis.usps.com' },
    credentials: { clientId: 'USPS_CLIENT_ID', clientSecret: 'USPS_CLIENT_SECRET' },
    // USPS's default quota: about 60 calls an hour per app, token calls included (one token lasts 8 h).
    requestBudget: { variable: 'USPS_REQUEST_BUDGET', fallback: { requests: 60, per: 'hour' } },
    requiredInProduction: false,
  },
  createAdapter: ({ baseUrl, credentials, timeoutMs }) =>
    new UspsClient({ baseUrl, clientId: credentials.clientId!, clientSecret: credentials.clientSecret!, timeoutMs }),
  simulator: uspsSimulator(),
}
