import type { FastifyBaseLogger } from 'fastify'
import type { CarrierAdapter } from '../carriers/carrier'
import { FedexClient } from '../carriers/fedex/fedex.client'
import { UparcelClient } from '../carriers/uparcel/uparcel.client'
import { ConfigError, type Config } from '../config/config'
import { CarrierBudget } from '../services/carrier-budget'
import type { CarrierChannel } from '../services/refresh.service'
import { CarrierSimulator } from '../simulator/simulator'

export type CarrierMode = 'live' | 'simulator'

export interface Carriers {
  channels: Map<string, CarrierChannel>
  modes: Record<'FEDEX' | 'UPARCEL', CarrierMode>
  close(): Promise<void>
}

/**
 * The carrier adapters with their budgets. A carrier without credentials is served by the
 * built-in simulator (docs/simulator.md), started here on loopback, unless NODE_ENV=production, where
 * missing credentials are a start-up error.
 */
function liveCarriers(config: Config) {
  return { fedexLive: Boolean(config.fedex.clientId && config.fedex.clientSecret), uparcelLive: Boolean(config.uparcel.apiKey && config.uparcel.secretKey) }
}

/** With NODE_ENV=production a carrier without credentials is a start-up error, not a simulator. */
export function assertCarrierCredentials(config: Config): void {
  const { fedexLive, uparcelLive } = liveCarriers(config)
  if (config.production && (!fedexLive || !uparcelLive)) {
    throw new ConfigError(
      `NODE_ENV=production needs carrier credentials: ${[!fedexLive && 'FEDEX_CLIENT_ID and FEDEX_CLIENT_SECRET', !uparcelLive && 'UPARCEL_API_KEY and UPARCEL_SECRET_KEY'].filter(Boolean).join(', ')}`,
    )
  }
}

export async function createCarriers(config: Config, log: FastifyBaseLogger): Promise<Carriers> {
  assertCarrierCredentials(config)
  const { fedexLive, uparcelLive } = liveCarriers(config)
  let simulator: CarrierSimulator | undefined
  if (!fedexLive || !uparcelLive) {
    simulator = new CarrierSimulator({ stepMs: config.simulatorStepMs })
    await simulator.start()
    log.warn(
      {
        simulator: simulator.url,
        fedex: fedexLive ? 'live' : 'simulator',
        uparcel: uparcelLive ? 'live' : 'simulator',
        stepSeconds: config.simulatorStepMs / 1000,
        pollSeconds: config.simulatorPollIntervalMs / 1000,
      },
      `carriers without credentials are served by the built-in carrier simulator, whose stories move a stage every ${config.simulatorStepMs / 1000} s; their tasks are fetched every ${config.simulatorPollIntervalMs / 1000} s (POLL_INTERVAL_SECONDS sets it)`,
    )
  }
  const fedex = new FedexClient({
    baseUrl: fedexLive ? config.fedex.apiUrl : simulator!.fedexUrl,
    clientId: config.fedex.clientId ?? 'simulator',
    clientSecret: config.fedex.clientSecret ?? 'simulator',
    timeoutMs: config.carrierTimeoutMs,
  })
  const uparcel = new UparcelClient({
    baseUrl: uparcelLive ? config.uparcel.apiUrl : simulator!.uparcelUrl,
    apiKey: config.uparcel.apiKey ?? 'simulator',
    secretKey: config.uparcel.secretKey ?? 'simulator',
    timeoutMs: config.carrierTimeoutMs,
  })
  const channel = (adapter: CarrierAdapter, rate: number, live: boolean): CarrierChannel => ({
    adapter,
    budget: new CarrierBudget(rate),
    pollIntervalMs: live ? config.pollIntervalMs : config.simulatorPollIntervalMs,
  })
  return {
    channels: new Map([
      ['FEDEX', channel(fedex, config.fedex.requestsPerSecond, fedexLive)],
      ['UPARCEL', channel(uparcel, config.uparcel.requestsPerSecond, uparcelLive)],
    ]),
    modes: { FEDEX: fedexLive ? 'live' : 'simulator', UPARCEL: uparcelLive ? 'live' : 'simulator' },
    async close() {
      await Promise.all([fedex.close(), uparcel.close()])
      await simulator?.stop()
    },
  }
}
