import type { CarrierSimulator } from '../../src/simulator/simulator'

/** The environment that points a service process's carrier adapters at a simulator. */
export function simulatorEnv(sim: CarrierSimulator): Record<string, string> {
  return {
    FEDEX_API_URL: sim.fedexUrl,
    FEDEX_CLIENT_ID: 'id',
    FEDEX_CLIENT_SECRET: 'secret',
    UPARCEL_API_URL: sim.uparcelUrl,
    UPARCEL_API_KEY: 'key',
    UPARCEL_SECRET_KEY: 'secret',
  }
}
