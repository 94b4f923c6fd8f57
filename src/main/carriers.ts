import type { FastifyBaseLogger } from 'fastify'
import type { CarrierConnection, CarrierEnvironment } from '../carriers/carrier-plugin'
import type { SimulatedCarrier } from '../simulator/simulated-carrier'
import type { CarrierRoute, RouteClient } from '../carriers/carrier-route'
import type { CarrierPushes, PushSettings, PushSubscriber } from '../carriers/carrier-push'
import { CARRIERS, createCarrierSimulator, pluginsByAggregatorKey, ROUTES } from '../carriers/registry'
import { CircuitBreaker } from '../domain/circuit-breaker'
import { ConfigError, type Config } from '../config/config'
import { CarrierBudget } from '../services/carrier-budget'
import { RouteDetection } from '../services/route-detection'
import type { CarrierMode } from '../services/carrier-catalog.service'
import type { CarrierChannel } from '../services/refresh.service'
import type { CarrierSimulator } from '../simulator/simulator'

/** A route as the workers run it: its client (reading is its channel's adapter) and its circuit. */
export interface RouteRunner {
  route: CarrierRoute
  client: RouteClient
  circuit: CircuitBreaker
}

/** A carrier's push service as the workers run it: its subscriber, its own circuit, its reconciliation. */
export interface PushRunner {
  carrierCode: string
  pushes: CarrierPushes
  subscriber: PushSubscriber
  circuit: CircuitBreaker
  /** A subscribed task is fetched this often; a task a push makes terminal once more. */
  reconcileMs: number
}

export interface Carriers {
  channels: Map<string, CarrierChannel>
  routes: RouteRunner[]
  pushes: PushRunner[]
  close(): Promise<void>
}

/**
 * How each carrier of the registry runs: live with its credentials; else on the built-in simulator
 * (docs/simulator.md), started here on loopback; with NODE_ENV=production, a carrier without
 * credentials is a start-up error when the original interface promises it, else unavailable. A
 * route has one mode for all its carriers.
 */
export function carrierModes(config: Config): Record<string, CarrierMode> {
  return Object.fromEntries(
    [...CARRIERS, ...ROUTES].map((carrier) => {
      const settings = config.carriers[carrier.code]!
      return [carrier.code, settings.credentials ? 'live' : config.production ? 'unavailable' : 'simulator']
    }),
  )
}

/** With NODE_ENV=production a required carrier without credentials is a start-up error, not a simulator. */
export function assertCarrierCredentials(config: Config): void {
  if (!config.production) return
  const missing = CARRIERS.filter((c) => c.env.requiredInProduction && !config.carriers[c.code]!.credentials)
  if (missing.length > 0)
    throw new ConfigError(`NODE_ENV=production needs carrier credentials: ${missing.map((c) => Object.values(c.env.credentials).join(' and ')).join(', ')}`)
}

/** The credentials a carrier or route runs with: its own, else the simulator's (each field "simulator"). */
export function credentialsInUse(config: Pick<Config, 'carriers'>, spec: { code: string; env: CarrierEnvironment }): Record<string, string> {
  return config.carriers[spec.code]?.credentials ?? Object.fromEntries(Object.keys(spec.env.credentials).map((field) => [field, 'simulator']))
}

/**
 * A carrier's push service as it runs here (docs/carriers.md, "UPS Track Alert"); undefined when
 * it does not: turned off, the carrier unavailable, or live without the secret. On the simulator
 * the simulated carrier's own pair ("simulator") authenticates it.
 */
export function pushSettingsInUse(
  config: Pick<Config, 'pushes' | 'publicBaseUrl'>,
  carrier: { code: string; pushes?: CarrierPushes },
  mode: CarrierMode | undefined,
): PushSettings | undefined {
  const settings = config.pushes[carrier.code]
  if (!carrier.pushes || !settings || settings.off || mode === undefined || mode === 'unavailable') return undefined
  if (mode === 'live' && !settings.secret) return undefined
  const simulated = mode === 'simulator'
  return {
    version: settings.version,
    secret: simulated ? 'simulator' : settings.secret!,
    clientId: simulated ? 'simulator' : settings.clientId,
    callbackUrl: `${config.publicBaseUrl}/inbound/${carrier.pushes.label}`,
  }
}

/** Where a carrier's or route's adapter reaches it: its API when live, else the built-in simulator. */
function connectionOf(
  config: Config,
  spec: { code: string; env: CarrierEnvironment; simulator: SimulatedCarrier },
  live: boolean,
  simulator: CarrierSimulator | undefined,
): CarrierConnection {
  return {
    baseUrl: live ? config.carriers[spec.code]!.apiUrl : simulator!.urlOf(spec.simulator),
    credentials: credentialsInUse(config, spec),
    timeoutMs: config.carrierTimeoutMs,
  }
}

/**
 * AUTO through a route's detection (services/route-detection.ts): in a process with carriers,
 * its route's client under the route's budget; in an API process (ROLE=api), a client of its own
 * when the route is live (a simulated route is its workers' own); none without a route.
 */
export function routeDetector(config: Config, carriers: Carriers | undefined): { detector: RouteDetection; close(): Promise<void> } | undefined {
  const runner = carriers?.routes[0]
  const channel = runner && carriers!.channels.get(runner.route.code)
  if (runner && channel)
    return { detector: new RouteDetection(runner.route, runner.client, channel.budget, pluginsByAggregatorKey(runner.route)), close: async () => {} }
  const route = ROUTES.find((r) => carrierModes(config)[r.code] === 'live')
  if (carriers || !route) return undefined
  const client = route.createClient(connectionOf(config, route, true, undefined))
  return {
    detector: new RouteDetection(route, client, new CarrierBudget(config.carriers[route.code]!.requestsPerSecond), pluginsByAggregatorKey(route)),
    close: () => client.close(),
  }
}

export async function createCarriers(config: Config, log: FastifyBaseLogger): Promise<Carriers> {
  assertCarrierCredentials(config)
  const modes = carrierModes(config)
  let simulator: CarrierSimulator | undefined
  if (Object.values(modes).includes('simulator')) {
    // Simulated carriers push to this process's own gateway, as the real ones push to
    // PUBLIC_BASE_URL; a worker process serves no gateway, so its simulator pushes there.
    const loopback = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
    simulator = createCarrierSimulator({
      stepMs: config.simulatorStepMs,
      pushTo: config.role === 'worker' ? config.publicBaseUrl : `http://${loopback.includes(':') ? `[${loopback}]` : loopback}:${config.port}`,
    })
    await simulator.start()
    log.warn(
      { simulator: simulator.url, carriers: modes, stepSeconds: config.simulatorStepMs / 1000, pollSeconds: config.simulatorPollIntervalMs / 1000 },
      `carriers without credentials are served by the built-in carrier simulator, whose stories move a stage every ${config.simulatorStepMs / 1000} s; their tasks are fetched every ${config.simulatorPollIntervalMs / 1000} s (POLL_INTERVAL_SECONDS sets it)`,
    )
  }
  const channels = new Map<string, CarrierChannel>()
  for (const carrier of CARRIERS) {
    const settings = config.carriers[carrier.code]!
    const mode = modes[carrier.code]
    if (mode === 'unavailable') {
      log.warn(
        { carrier: carrier.code, missing: Object.values(carrier.env.credentials) },
        `${carrier.name} has no credentials: it is unavailable (subscribing it is unsupported_carrier)`,
      )
      continue
    }
    const live = mode === 'live'
    channels.set(carrier.code, {
      adapter: carrier.createAdapter(connectionOf(config, carrier, live, simulator)),
      budget: new CarrierBudget(settings.requestsPerSecond),
      circuit: new CircuitBreaker(),
      pollIntervalMs: live ? config.pollIntervalMs : config.simulatorPollIntervalMs,
    })
  }
  const pushes: PushRunner[] = []
  for (const carrier of CARRIERS) {
    const settings = pushSettingsInUse(config, carrier, modes[carrier.code])
    if (!settings || !carrier.pushes) continue
    const live = modes[carrier.code] === 'live'
    pushes.push({
      carrierCode: carrier.code,
      pushes: carrier.pushes,
      subscriber: carrier.pushes.createSubscriber(connectionOf(config, carrier, live, simulator), settings),
      circuit: new CircuitBreaker(),
      // On the simulator, as its poll interval: six of them (12 hours against a 2-hour poll).
      reconcileMs: live ? config.pushes[carrier.code]!.reconcileMs : config.simulatorPollIntervalMs * 6,
    })
  }
  const routes: RouteRunner[] = []
  for (const route of ROUTES) {
    const settings = config.carriers[route.code]!
    const mode = modes[route.code]
    if (mode === 'unavailable') {
      log.warn(
        { route: route.code, missing: Object.values(route.env.credentials) },
        `${route.name} has no key: the ${route.carriers.length} carriers it serves are unavailable (subscribing them is unsupported_carrier)`,
      )
      continue
    }
    const live = mode === 'live'
    const client = route.createClient(connectionOf(config, route, live, simulator))
    const circuit = new CircuitBreaker()
    routes.push({ route, client, circuit })
    channels.set(route.code, {
      adapter: client,
      budget: new CarrierBudget(settings.requestsPerSecond),
      circuit,
      pollIntervalMs: live ? config.routePollIntervalMs : config.simulatorPollIntervalMs,
      serves: route.carriers.map((c) => c.code),
      recordOf: (task) => route.recordOf(task.carrierCode, task.trackingNumber),
    })
  }
  return {
    channels,
    routes,
    pushes,
    async close() {
      await Promise.all([...channels.values()].map((c) => c.adapter.close()))
      await Promise.all(pushes.map((p) => p.subscriber.close()))
      await simulator?.stop()
    },
  }
}
