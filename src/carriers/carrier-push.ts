import type { IncomingHttpHeaders } from 'node:http'
import type { CarrierLookup } from './carrier'
import type { CarrierConnection } from './carrier-plugin'

/** A push's news of one record. */
export interface PushedRecord {
  /** The sender's event name (17TRACK: TRACKING_UPDATED, TRACKING_STOPPED; UPS: its event type). */
  event: string
  record: string
  /** An update: what the record says now. Absent for other events. */
  lookup?: CarrierLookup
}

/**
 * What the workers need to apply a source's stored pushes (services/inbound-apply.service.ts):
 * how its bodies read, which task a record is, and the channel whose claims hold those tasks.
 */
export interface PushReader {
  /** The source, as `/inbound/{source}` names it. */
  readonly label: string
  /** The refresh channel whose tasks its pushes update (a route's code, or the carrier's own). */
  readonly code: string
  readPush(body: unknown): PushedRecord | null
  /** The carrier code and number of a record; undefined for a record no task of this channel can have. */
  taskOf(record: string): { carrierCode: string; trackingNumber: string } | undefined
}

/** How a carrier's pushes are read: records are its numbers, its tasks are its own channel's. */
export function pushReaderOf(carrierCode: string, pushes: Pick<CarrierPushes, 'label' | 'readPush'>): PushReader {
  return {
    label: pushes.label,
    code: carrierCode,
    readPush: (body) => pushes.readPush(body),
    taskOf: (trackingNumber) => ({ carrierCode, trackingNumber }),
  }
}

/** A number's subscription outcome: subscribed (for the carrier's lifetime) or refused for good. */
export type SubscriptionOutcome = { subscribed: true } | { subscribed: false; code: string; message: string }

/** Subscribes numbers at a carrier that pushes; numbers it says nothing of are asked again later. */
export interface PushSubscriber {
  subscribe(trackingNumbers: readonly string[]): Promise<Map<string, SubscriptionOutcome>>
  close(): Promise<void>
}

/** How this service and the carrier authenticate each other's pushes (docs/carriers.md, "UPS Track Alert"). */
export interface PushSettings {
  /** The carrier's API version of its push service. */
  version: string
  /** Ours, never the carrier's: what the carrier presents with each push (and, for OAuth, the client secret). */
  secret: string
  /** The OAuth client the carrier presents (its x-api-key), where the version uses one. */
  clientId: string
  /** Where pushes are sent: {PUBLIC_BASE_URL}/inbound/{label}. */
  callbackUrl: string
}

/**
 * A carrier plugin's push service (UPS Track Alert): its numbers are subscribed in groups for a
 * limited life and renewed before it ends; each push is one event of one number; a subscribed
 * number is then fetched only to reconcile.
 */
export interface CarrierPushes {
  /** The gateway source: `/inbound/{label}`. */
  readonly label: string
  readonly name: string
  /** Its environment variables' prefix (UPS_TRACK_ALERT: _SECRET, _VERSION, _CLIENT_ID, _RECONCILE_SECONDS). */
  readonly envPrefix: string
  /** The carrier's versions of the service, the default first. */
  readonly versions: readonly string[]
  readonly numbersPerRequest: number
  /** How long a subscription lasts at the carrier. */
  readonly lifetimeMs: number
  readPush(body: unknown): PushedRecord | null
  /** Whether a push presents what the settings expect (constant time). */
  verifyPush(headers: IncomingHttpHeaders, settings: PushSettings, now: number): boolean
  /** The carrier fetching a token to push with (OAuth client credentials): the token, or null when refused. */
  grantToken?(headers: IncomingHttpHeaders, rawBody: Buffer, settings: PushSettings, now: number): { accessToken: string; expiresIn: number } | null
  createSubscriber(connection: CarrierConnection, settings: PushSettings): PushSubscriber
}
