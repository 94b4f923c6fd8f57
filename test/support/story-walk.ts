import type { CarrierAdapter, CarrierLookup } from '../../src/carriers/carrier'
import type { CarrierPlugin } from '../../src/carriers/carrier-plugin'
import { createCarrierSimulator } from '../../src/carriers/registry'

/** A story stage's length: the simulator's clock moves one between fetches. */
export const STEP = 60_000

/**
 * The project's simulator on loopback with a clock of its own, and each carrier's real adapter
 * against it: a number's story is walked one stage a fetch. Credentials given here are enforced.
 */
export function storyWalk(options: { credentials?: Record<string, Record<string, string>> } = {}) {
  let clock = Date.parse('2026-03-02T08:00:00Z')
  const sim = createCarrierSimulator({ stepMs: STEP, now: () => clock, credentials: options.credentials })
  const adapters: CarrierAdapter[] = []
  return {
    sim,
    start: () => sim.start(),
    async stop() {
      await Promise.all(adapters.map((a) => a.close()))
      await sim.stop()
    },
    /** The carrier's adapter on the simulator, with these credentials (each field "<field>-ok" by default). */
    adapter(carrier: CarrierPlugin, credentials = goodCredentials(carrier)): CarrierAdapter {
      const adapter = carrier.createAdapter({ baseUrl: sim.urlOf(carrier.simulator), credentials, timeoutMs: 2000 })
      adapters.push(adapter)
      return adapter
    },
    /** What the carrier says of `number` at each of its first `stages` stages. */
    async walk(adapter: CarrierAdapter, number: string, stages: number): Promise<CarrierLookup[]> {
      const seen: CarrierLookup[] = []
      for (let i = 0; i < stages; i++) {
        seen.push((await adapter.fetch([number])).get(number)!)
        clock += STEP
      }
      return seen
    },
    tokenRequests: (carrier: CarrierPlugin) => sim.stats().carriers[carrier.simulator.path]!.tokenRequests,
    trackRequests: (carrier: CarrierPlugin) => sim.stats().carriers[carrier.simulator.path]!.trackRequests,
  }
}

export const goodCredentials = (carrier: CarrierPlugin): Record<string, string> =>
  Object.fromEntries(Object.keys(carrier.env.credentials).map((field) => [field, `${field}-ok`]))

export const milestones = (lookups: CarrierLookup[]) => lookups.map((l) => (l.found ? l.snapshot.milestone : 'not_found'))
