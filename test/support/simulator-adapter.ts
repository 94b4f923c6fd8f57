import type { CarrierAdapter } from '../../src/carriers/carrier'
import type { CarrierPlugin } from '../../src/carriers/carrier-plugin'
import type { CarrierSimulator } from '../../src/simulator/simulator'

/** A carrier's real adapter pointed at the simulator, with made-up credentials (the simulator takes any unless told otherwise). */
export function simulatorAdapter(carrier: CarrierPlugin, sim: CarrierSimulator, timeoutMs: number): CarrierAdapter {
  return carrier.createAdapter({
    baseUrl: sim.urlOf(carrier.simulator),
    credentials: Object.fromEntries(Object.keys(carrier.env.credentials).map((field) => [field, 'simulator'])),
    timeoutMs,
  })
}
