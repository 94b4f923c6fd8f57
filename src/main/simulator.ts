import { CARRIERS, createCarrierSimulator, ROUTES } from '../carriers/registry'

/**
 * `npm run simulator`: the carrier simulator alone, for pointing services at it (each carrier's
 * API URL variable, with any non-empty credentials).
 * SIMULATOR_PORT (default 4010), SIMULATOR_STEP_SECONDS (default 60).
 */
const port = Number(process.env.SIMULATOR_PORT ?? 4010)
const stepSeconds = Number(process.env.SIMULATOR_STEP_SECONDS ?? 60)
const simulator = createCarrierSimulator({ port, stepMs: stepSeconds * 1000 })
await simulator.start()
console.log(`carrier simulator on ${simulator.url} (stories advance every ${stepSeconds} s)`)
for (const carrier of [...CARRIERS, ...ROUTES]) {
  const credentials = Object.values(carrier.env.credentials).map((variable) => `${variable}=sim`)
  console.log(`  ${carrier.env.apiUrl.variable}=${simulator.urlOf(carrier.simulator)} ${credentials.join(' ')}`)
}
console.log(`  stats: GET ${simulator.url}/_simulator/stats`)
const stop = () => void simulator.stop().then(() => process.exit(0))
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
