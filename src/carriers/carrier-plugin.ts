import type { RequestBudget } from '../domain/request-budget'
import type { CarrierAdapter } from './carrier'
import type { CarrierPushes } from './carrier-push'
import type { StatusTable } from './status-table'
import type { SimulatedCarrier } from '../simulator/simulated-carrier'

/**
 * Everything the service knows about one carrier, held in that carrier's folder. The registry
 * (registry.ts) lists them; nothing else spells a carrier's code. Adding a carrier is a folder
 * exporting one of these plus one line in the registry (docs/carriers.md, "Adding a carrier").
 */
export interface CarrierPlugin {
  /** The code API users send: upper-case letters and digits. */
  readonly code: string
  readonly name: string
  /** The carrier's own public tracking page for a number (the tracking page links to it). */
  trackingPageUrl(trackingNumber: string): string
  /** How many tracking numbers one request may carry. */
  readonly numbersPerRequest: number
  /** Its requests carry a token the adapter asks for and keeps (false: a key sent on each request). */
  readonly usesToken: boolean
  readonly formats: readonly TrackingFormat[]
  /** The carrier's status codes by milestone; every code its simulator emits must be in it. */
  readonly statusTable: StatusTable
  readonly env: CarrierEnvironment
  createAdapter(connection: CarrierConnection): CarrierAdapter
  /** The carrier's push service, when it has one (UPS Track Alert): its numbers are then fetched only to reconcile. */
  readonly pushes?: CarrierPushes
  /**
   * The carrier's own keys at the aggregators, by route label (`17track`): a number an
   * aggregator's detection gives one of these (AUTO, when our formats cannot tell) is this
   * plugin's, read by the plugin.
   */
  readonly aggregatorKeys?: Readonly<Record<string, readonly number[]>>
  /** The carrier's half of the project's simulator: its wire format and its story stages. */
  readonly simulator: SimulatedCarrier
}

/** A tracking-number format, matched against the trimmed, upper-cased number. */
export interface TrackingFormat {
  readonly name: string
  readonly pattern: RegExp
  /** True when the number's check digit holds; absent when the format has none. */
  readonly checkDigit?: (number: string) => boolean
  /** false: a holding check digit makes a match only medium (a rule the carrier does not document for tracking). */
  readonly certain?: false
  /** true: a loose shape (anything the carrier's API accepts), a `low` candidate whatever it holds. */
  readonly loose?: true
  readonly example: string
}

/** The environment variables of a carrier, read by config.ts. */
export interface CarrierEnvironment {
  readonly apiUrl: { variable: string; fallback: string }
  /** Credential field → its variable. All set: the carrier is live; none set: simulated. */
  readonly credentials: Readonly<Record<string, string>>
  /** Requests a second, minute, hour or day ("60/hour"), as the carrier's quota is written; a process's share of it. */
  readonly requestBudget: { variable: string; fallback: RequestBudget }
  /**
   * With NODE_ENV=production, a missing credential is a start-up error for a required carrier;
   * an optional one is then simply unavailable.
   */
  readonly requiredInProduction: boolean
}

/** Where and how an adapter reaches its carrier (the real API or the simulator). */
export interface CarrierConnection {
  baseUrl: string
  credentials: Readonly<Record<string, string>>
  timeoutMs: number
}
