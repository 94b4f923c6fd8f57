import type { CarrierPlugin } from '../carrier-plugin'
import { UparcelClient } from './uparcel.client'
import { UPARCEL_MAX_BATCH } from './uparcel.format'
import { UPARCEL_STATUSES } from './uparcel.statuses'
import { uparcelSimulator } from './uparcel.simulator'

export const UPARCEL: CarrierPlugin = {
  code: 'UPARCEL',
  name: 'uParcel',
  trackingPageUrl: (n) => `https://www.uparcel.sg/track/?trackingNumber=${encodeURIComponent(n)}`,
  numbersPerRequest: UPARCEL_MAX_BATCH,
  usesToken: true,
  // ASSUMED (uparcel.format.ts): UP + 10 digits, no check digit, so a match is never certain.
  formats: [{ name: 'uParcel (UP + 10 digits)', pattern: /^UP[0-9]{10}$/, example: 'UP2411220001' }],
  statusTable: UPARCEL_STATUSES,
  env: {
    apiUrl: { variable: 'UPARCEL_API_URL', fallback: 'https://www.uparcel.sg/' },
    credentials: { apiKey: 'UPARCEL_API_KEY', secretKey: 'UPARCEL_SECRET_KEY' },
    requestBudget: { variable: 'UPARCEL_REQUEST_BUDGET', fallback: { requests: 10, per: 'second' } },
    requiredInProduction: true,
  },
  createAdapter: ({ baseUrl, credentials, timeoutMs }) =>
    new UparcelClient({ baseUrl, apiKey: credentials.apiKey!, secretKey: credentials.secretKey!, timeoutMs }),
  simulator: uparcelSimulator(),
}
