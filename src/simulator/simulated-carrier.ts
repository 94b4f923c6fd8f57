import type { IncomingHttpHeaders } from 'node:http'
import type { Fault, Place, Stage, StageKind } from './stories'

/**
 * A carrier's half of the simulator (in the carrier's folder): its wire format, served under
 * `/<path>` of the simulator, and what it says at each stage of a story.
 */
export interface SimulatedCarrier {
  /** The URL segment the carrier is served under: `/<path>/…`. */
  readonly path: string
  /** The status codes its answers carry, by stage: each must be in the carrier's status table. */
  readonly emittedCodes: Readonly<Record<StageKind, string>>
  /** The part of a number that selects its story (UPS numbers: after "1Z"). */
  storyKey?(trackingNumber: string): string
  /** A number of the carrier's shape that follows the story `prefix` selects (stories.ts), one per `serial`. */
  storyNumber(prefix: string, serial: number): string
  /** The carrier's error body for an HTTP status, as its API shapes it. */
  errorBody(status: number, message: string): unknown
  handle(request: SimulatorRequest, context: SimulationContext): Promise<SimulatorAnswer>
  /** A carrier that pushes: what it would push now (each once it was taken), to the service's gateway. */
  pushes?(context: SimulationContext): SimulatedPush[]
}

/** A push the simulator sends to the service: a path under the service's origin, the exact body and its headers. */
export interface SimulatedPush {
  path: string
  body: string
  headers: Record<string, string>
  /** Headers the sender first obtains from the service at `origin` (an OAuth token it fetches there). */
  authorize?(origin: string): Promise<Record<string, string>>
  /** The service answered 2xx: not pushed again. */
  taken(): void
}

export interface SimulatorRequest {
  method: string
  /** The path after `/<path>`, starting with "/". */
  path: string
  query: URLSearchParams
  headers: IncomingHttpHeaders
  body: string
}

export interface SimulatorAnswer {
  status: number
  body: unknown
  headers?: Record<string, string>
  /** Sent as is instead of `body` (a malformed answer). */
  raw?: string
}

/** What a number's story shows now. */
export interface ShipmentView {
  stages: Stage[]
  times: Date[]
  final: boolean
  estimatedDelivery: Date
  origin: Place
  destination: Place
}

export type Shipment = { found: false } | { found: true; view: ShipmentView; reused: boolean }

/** What the simulator core offers a carrier's handler. */
export interface SimulationContext {
  now(): number
  /** The credentials to enforce, when the simulator was given some for this carrier. */
  readonly credentials: Readonly<Record<string, string>> | undefined
  countToken(): void
  countTrack(): void
  countSubscription(): void
  /**
   * The fault the request must serve because of one of its numbers, as an answer; undefined to
   * answer normally (no fault, or a timeout that has waited). `expired_token` comes back as a
   * fault for the handler to refuse its token.
   */
  fault(numbers: string[]): Promise<SimulatorAnswer | 'expired_token' | undefined>
  /** A number's story as it stands now; a found one counts as fetched. */
  shipment(trackingNumber: string): Shipment
}

export type { Fault }
