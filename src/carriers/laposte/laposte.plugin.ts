import type { CarrierPlugin } from '../carrier-plugin'
import { LaPosteClient } from './laposte.client'
import { LAPOSTE_FORMATS } from './laposte.formats'
import { LAPOSTE_STATUSES } from './laposte.statuses'
import { laposteSimulator } from './laposte.simulator'

export const LAPOSTE: CarrierPlugin = {
  code: 'LAPOSTE',
  name: 'La Poste',
  trackingPageUrl: (n) => `https://www.laposte.fr/outils/suivre-vos-envois?code=${encodeURIComponent(n)}`,
  numbersPerRequest: LaPosteClient.maxBatchSize,
  usesToken: false,
  formats: LAPOSTE_FORMATS,
  statusTable: LAPOSTE_STATUSES,
  aggregatorKeys: { '17track': [6051, 100273] },
  env: {
    apiUrl: { variable: 'LAPOSTE_API_URL', fallback: 'https://api.laposte.fr' },
    credentials: { apiKey: 'LAPOSTE_API_KEY' },
    // La Poste documents 100 calls a minute a key (one source says a second): half of it.
    requestBudget: { variable: 'LAPOSTE_REQUEST_BUDGET', fallback: { requests: 50, per: 'minute' } },
    requiredInProduction: false,
  },
  createAdapter: ({ baseUrl, credentials, timeoutMs }) => new LaPosteClient({ baseUrl, apiKey: credentials.apiKey!, timeoutMs }),
  simulator: laposteSimulator(),
}
