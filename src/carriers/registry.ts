import { CANADAPOST } from './canadapost/canadapost.plugin'
import type { CarrierPlugin } from './carrier-plugin'
import type { CarrierRoute } from './carrier-route'
import { DHL } from './dhl/dhl.plugin'
import { FEDEX } from './fedex/fedex.plugin'
import { GLS } from './gls/gls.plugin'
import { LAPOSTE } from './laposte/laposte.plugin'
import { SEVENTEENTRACK } from './seventeentrack/seventeentrack.route'
import { UPARCEL } from './uparcel/uparcel.plugin'
import { UPS } from './ups/ups.plugin'
import { USPS } from './usps/usps.plugin'
import { CarrierSimulator, type SimulatorOptions } from '../simulator/simulator'

/** The one list of carriers. A new carrier is its folder and one line here. */
export const CARRIERS: readonly CarrierPlugin[] = [FEDEX, UPARCEL, UPS, USPS, DHL, LAPOSTE, GLS, CANADAPOST]

/** The aggregators, each serving carriers no plugin serves. */
export const ROUTES: readonly CarrierRoute[] = [SEVENTEENTRACK]

/** Every code an API user can name: the plugins', then the routes' carriers'. */
export const CARRIER_CODES: readonly string[] = [...CARRIERS.map((c) => c.code), ...ROUTES.flatMap((r) => r.carriers.map((c) => c.code))]

/** What has a mode, settings and a refresh channel: each plugin, and each route (for all its carriers). */
export const CHANNEL_CODES: readonly string[] = [...CARRIERS.map((c) => c.code), ...ROUTES.map((r) => r.code)]

/** The plugins' carriers by their key at a route's aggregator (CarrierPlugin.aggregatorKeys). */
export function pluginsByAggregatorKey(route: CarrierRoute): ReadonlyMap<number, string> {
  return new Map(CARRIERS.flatMap((plugin) => (plugin.aggregatorKeys?.[route.label] ?? []).map((key) => [key, plugin.code] as const)))
}

export function carrierOf(code: string): CarrierPlugin | undefined {
  return CARRIERS.find((c) => c.code === code)
}

/** The route that serves a carrier code; undefined for a plugin's code or an unknown one. */
export function routeOf(code: string): CarrierRoute | undefined {
  return ROUTES.find((r) => r.carriers.some((c) => c.code === code))
}

/** What pages and messages say of any carrier code: its name and a public tracking page. */
export function carrierNamed(code: string): { name: string; trackingPageUrl(trackingNumber: string): string } | undefined {
  const plugin = carrierOf(code)
  if (plugin) return plugin
  const route = routeOf(code)
  const carrier = route?.carriers.find((c) => c.code === code)
  return route && carrier ? { name: carrier.name, trackingPageUrl: route.trackingPageUrl } : undefined
}

/** The project's carrier simulator, speaking every carrier and route of the registry. */
export function createCarrierSimulator(options: Omit<SimulatorOptions, 'carriers'>): CarrierSimulator {
  return new CarrierSimulator({ ...options, carriers: [...CARRIERS.map((c) => c.simulator), ...ROUTES.map((r) => r.simulator)] })
}
