import type { RouteLabel } from '../carriers/carrier-route'
import { autoPick, detectCarriers } from '../carriers/detection'
import { CARRIERS, carrierNamed, ROUTES, routeOf } from '../carriers/registry'
import { AUTO_CARRIER, unsupportedCarrierMessage, type CarrierCandidate, type CarrierChoice } from '../domain/carriers'
import { describeBudget, effectiveIntervalMs, requestsPerSecond, type RequestBudget } from '../domain/request-budget'
import type { CarrierLoad } from './carrier-load'

/** live: its credentials; simulator: the built-in simulator; unavailable: neither (production without credentials). */
export type CarrierMode = 'live' | 'simulator' | 'unavailable'

export interface CarrierInfo {
  carrierCode: string
  name: string
  available: boolean
  numbersPerRequest: number
  formats: { name: string; example: string }[]
  /** "60/hour": as configured for a worker process (a route's carriers share the route's). */
  requestBudget: string
  /** The aggregator the carrier is served through ("17track"); absent for a carrier of our own. */
  route?: RouteLabel
}

export interface CarrierPacing {
  activeTasks: number
  effectiveIntervalSeconds: number
}

/** How a carrier is paced: its budget (a worker process's) and its poll interval. */
export interface CarrierPace {
  budget: RequestBudget
  pollIntervalMs: number
}

/**
 * The carriers as API users see them: the registry, with which of them this service can reach.
 * It also decides a subscription's carrier: a known, available code, or the one detection
 * certainly picks for AUTO.
 */
export class CarrierCatalogService {
  constructor(
    private readonly modes: Readonly<Record<string, CarrierMode>>,
    /** Each carrier's budget and poll interval in this process (from config: main/container.ts). */
    private readonly paces: Readonly<Record<string, CarrierPace>>,
    private readonly load?: CarrierLoad,
  ) {}

  /** How a carrier runs here (a routed carrier as its route does); a code the registry does not know is unavailable. */
  mode(code: string): CarrierMode {
    return this.modes[routeOf(code)?.code ?? code] ?? 'unavailable'
  }

  isAvailable = (code: string): boolean => this.mode(code) !== 'unavailable'

  /** Our own carriers, then each route's, by the route's order. */
  list(): CarrierInfo[] {
    const own = CARRIERS.map((c) => ({
      carrierCode: c.code,
      name: c.name,
      available: this.isAvailable(c.code),
      numbersPerRequest: c.numbersPerRequest,
      formats: c.formats.map((f) => ({ name: f.name, example: f.example })),
      requestBudget: describeBudget(this.paceOf(c.code).budget),
    }))
    const routed = ROUTES.flatMap((route) =>
      route.carriers.map((c) => ({
        carrierCode: c.code,
        name: c.name,
        available: this.isAvailable(c.code),
        numbersPerRequest: route.numbersPerRequest,
        // The aggregator knows the formats; detection of ours does not guess them.
        formats: [],
        requestBudget: describeBudget(this.paceOf(route.code).budget),
        route: route.label,
      })),
    )
    return [...own, ...routed]
  }

  /** Each carrier with how often its active tasks are fetched now (docs/carriers.md, "Budgets"). */
  async listPaced(): Promise<(CarrierInfo & CarrierPacing)[]> {
    const active = (await this.load?.activeTasks()) ?? {}
    return this.list().map((c) => {
      const route = routeOf(c.carrierCode)
      const { budget, pollIntervalMs } = this.paceOf(route?.code ?? c.carrierCode)
      const activeTasks = active[c.carrierCode] ?? 0
      // A route's carriers share its budget: its pace is the whole route's.
      const paying = route ? route.carriers.reduce((sum, r) => sum + (active[r.code] ?? 0), 0) : activeTasks
      const intervalMs = effectiveIntervalMs(pollIntervalMs, paying, requestsPerSecond(budget), c.numbersPerRequest)
      return { ...c, activeTasks, effectiveIntervalSeconds: Math.ceil(intervalMs / 1000) }
    })
  }

  private paceOf(code: string): CarrierPace {
    return this.paces[code]!
  }

  detect(trackingNumber: string): CarrierCandidate[] {
    return detectCarriers(trackingNumber, CARRIERS, this.isAvailable)
  }

  resolve = (carrierCode: string, trackingNumber: string): CarrierChoice => {
    const available = CARRIERS.map((c) => c.code).filter(this.isAvailable)
    if (carrierCode === AUTO_CARRIER) {
      const candidates = this.detect(trackingNumber)
      const picked = autoPick(candidates)
      if (picked) return { ok: true, carrierCode: picked }
      const why =
        candidates.length === 0
          ? 'no carrier format matches the tracking number'
          : 'no single available carrier matches the tracking number with its check digit'
      return { ok: false, error: 'carrier_not_detected', message: `AUTO could not pick a carrier: ${why}; send the carrierCode`, candidates }
    }
    const carrier = carrierNamed(carrierCode)
    if (!carrier) return { ok: false, error: 'unsupported_carrier', message: unsupportedCarrierMessage(available) }
    if (!this.isAvailable(carrierCode)) {
      const route = routeOf(carrierCode)
      const why = route
        ? `${carrier.name} is served through ${route.name}, which has no key configured (${Object.values(route.env.credentials).join(', ')})`
        : `${carrier.name} has no credentials configured`
      return { ok: false, error: 'unsupported_carrier', message: `is not available on this service: ${why} (available: ${available.join(', ')})` }
    }
    return { ok: true, carrierCode }
  }
}
