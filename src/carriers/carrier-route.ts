import type { IncomingHttpHeaders } from 'node:http'
import type { CarrierAdapter } from './carrier'
import type { PushReader, PushedRecord } from './carrier-push'
import type { CarrierConnection, CarrierEnvironment } from './carrier-plugin'
import type { SimulatedCarrier } from '../simulator/simulated-carrier'

/** The routes' labels, as `GET /openapi/carriers` and `/inbound/{source}` name them. */
export const ROUTE_LABELS = ['17track'] as const
export type RouteLabel = (typeof ROUTE_LABELS)[number]

/**
 * An aggregator that serves many carriers no plugin of ours serves (docs/carriers.md, "Carriers
 * through 17TRACK"). Its carriers are codes API users name like any other; their tasks are
 * fetched by the route's one adapter, paced by its one budget and paused by its one circuit, and a
 * number is registered there once before it can be read (registering costs the key's quota).
 */
export interface CarrierRoute extends PushReader {
  /** The route's own code: its settings, its refresh loop, its circuit (never a task's carrier). */
  readonly code: string
  readonly name: string
  /** How `GET /openapi/carriers` names it (`route`), and the source of its pushes (`/inbound/{source}`). */
  readonly label: RouteLabel
  readonly carriers: readonly { code: string; name: string }[]
  readonly numbersPerRequest: number
  readonly env: CarrierEnvironment
  /** The aggregator's record of a number under one of its carriers: what its client reads and registers. */
  recordOf(carrierCode: string, trackingNumber: string): string
  /** The carrier code and number of a record; undefined for a record of a carrier not routed here. */
  taskOf(record: string): { carrierCode: string; trackingNumber: string } | undefined
  /** The aggregator's own key of a record's carrier (a plugin's carrier among them: CarrierPlugin.aggregatorKeys). */
  carrierKeyOf(record: string): number
  trackingPageUrl(trackingNumber: string): string
  /** Whether a push's signature holds over its raw bytes, for the route's credentials (constant time). */
  verifyPush(rawBody: Buffer, headers: IncomingHttpHeaders, credentials: Readonly<Record<string, string>>): boolean
  /** What a push says: its record and, for an update, the record's lookup; null when it names no record. */
  readPush(body: unknown): PushedRecord | null
  createClient(connection: CarrierConnection): RouteClient
  readonly simulator: SimulatedCarrier
}

/** A record's outcome at registration: registered (or already so) or refused for good or for now. */
export type RegistrationOutcome =
  { registered: true } | { registered: false; code: number; message: string; /** The key's quota, not the number: asked again later. */ quota: boolean }

/** The route's client: reading as an adapter (records for numbers), registering and stopping. */
export interface RouteClient extends CarrierAdapter {
  register(records: readonly string[]): Promise<Map<string, RegistrationOutcome>>
  /** Starts stopped records again (17TRACK allows it once a number, free). */
  restart(records: readonly string[]): Promise<Map<string, RegistrationOutcome>>
  /**
   * Moves registered records to another carrier of the same number (a task's carrier changed):
   * free at 17TRACK, a few times a number, where registering the new record costs quota. The
   * outcome by new record.
   */
  move(moves: readonly { from: string; to: string }[]): Promise<Map<string, RegistrationOutcome>>
  /** The records stopped (or already so). */
  stop(records: readonly string[]): Promise<Set<string>>
  /** The aggregator's own detection (registering without a carrier): the record of each number it could tell. */
  detect(trackingNumbers: readonly string[]): Promise<Map<string, string>>
}
