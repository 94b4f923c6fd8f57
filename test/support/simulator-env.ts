import { CARRIERS, ROUTES } from '../../src/carriers/registry'
import type { CarrierSimulator } from '../../src/simulator/simulator'

/** The environment that points a service process's carrier adapters (every carrier and route of the registry) at a simulator. */
export function simulatorEnv(sim: CarrierSimulator): Record<string, string> {
  const env: Record<string, string> = {}
  for (const carrier of [...CARRIERS, ...ROUTES]) {
    env[carrier.env.apiUrl.variable] = sim.urlOf(carrier.simulator)
    for (const [field, variable] of Object.entries(carrier.env.credentials)) env[variable] = `simulated-${field}`
  }
  return env
}
