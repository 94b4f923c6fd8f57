import { CarrierSimulator } from '../simulator/simulator'

/**
 * `npm run simulator`: the carrier simulator alone, for pointing services at it
 * (FEDEX_API_URL / UPARCEL_API_URL with any non-empty credentials).
 * SIMULATOR_PORT (default 4010), SIMULATOR_STEP_SECONDS (default 60).
 */
const port = Number(process.env.SIMULATOR_PORT ?? 4010)
const stepSeconds = Number(process.env.SIMULATOR_STEP_SECONDS ?? 60)
const simulator = new CarrierSimulator({ port, stepMs: stepSeconds * 1000 })
await simulator.start()
console.log(`carrier simulator on ${simulator.url} (stories advance every ${stepSeconds} s)`)
console.log(`  FEDEX_API_URL=${simulator.fedexUrl} FEDEX_CLIENT_ID=sim FEDEX_CLIENT_SECRET=sim`)
console.log(`  UPARCEL_API_URL=${simulator.uparcelUrl} UPARCEL_API_KEY=sim UPARCEL_SECRET_KEY=sim`)
console.log(`  stats: GET ${simulator.url}/_simulator/stats`)
const stop = () => void simulator.stop().then(() => process.exit(0))
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
