import { createHash } from 'node:crypto'
import { MILESTONES, plainMilestone, type Milestone } from './milestones'
import type { StandardStatus } from './statuses'
import type { Address, ProofOfDelivery, TrackingEvent } from './tracking-task'

/**
 * How a carrier's answer changes a task (docs/api.md, "What a fetch changes"; docs/refresh.md). Pure: the clock and the
 * number of genuinely new events come in as arguments.
 */

export interface CarrierEvent extends TrackingEvent {
  /** The milestone of the event's own code; "" when the carrier's table does not know it. */
  milestone: Milestone | ''
  /** A stable identity of the event at its carrier: refetching the same history merges. */
  key: string
  /** The offset of the event's local time as the carrier wrote it ("-08:00"); null when it gave none. */
  utcOffset: string | null
}

/**
 * An event's local time, written with its offset ("2026-11-25T14:03:00-08:00"), from its UTC time
 * and the offset the carrier gave; null without one (an offset is never guessed).
 */
export function localTimeOf(eventTime: Date, utcOffset: string | null): string | null {
  const minutes = offsetMinutes(utcOffset)
  if (minutes === null) return null
  return `${new Date(eventTime.getTime() + minutes * 60_000).toISOString().slice(0, 19)}${utcOffset}`
}

/** A UTC offset ("-08:00") in minutes; null when there is none or it is not one. */
export function offsetMinutes(utcOffset: string | null): number | null {
  const match = utcOffset === null ? null : /^([+-])(\d{2}):(\d{2})$/.exec(utcOffset)
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : null
}

/** What one successful fetch told about one tracking number. */
export interface CarrierSnapshot {
  /** The carrier's raw status code, kept for the record. */
  rawStatusCode: string
  /** null: the carrier's code is unknown to the mapping; the previous standard status stays. */
  standardStatus: StandardStatus | null
  /** The milestone of the same code, one of standardStatus's; null with it. */
  milestone: Milestone | null
  /** The carrier's own status text; "" when it gave none (the previous text stays). */
  carrierStatus: string
  /** null: not returned (or unparseable); the stored value stays. */
  estimatedDeliveryAt: Date | null
  originAddress: Address | null
  destinationAddress: Address | null
  /** null: the answer gave none; the stored one stays (as the ETA). */
  proofOfDelivery: ProofOfDelivery | null
  events: CarrierEvent[]
}

export const TERMINAL_STATUSES: ReadonlySet<StandardStatus> = new Set(['delivered', 'returned', 'cancelled', 'expired'])

export function isTerminal(status: StandardStatus): boolean {
  return TERMINAL_STATUSES.has(status)
}

/** The task as the refresh needs to know it. */
export interface TaskRefreshState {
  standardStatus: StandardStatus
  milestone: Milestone
  carrierStatus: string
  estimatedDeliveryAt: Date | null
  createdAt: Date
  lastNewEventAt: Date | null
}

export interface TaskUpdate {
  standardStatus: StandardStatus
  milestone: Milestone
  carrierStatus: string
  /** undefined: keep the stored value. */
  estimatedDeliveryAt: Date | undefined
  originAddress: Address | undefined
  destinationAddress: Address | undefined
  /** undefined: keep the stored one. */
  proofOfDelivery: ProofOfDelivery | undefined
  lastNewEventAt: Date | null
  /** standardStatus or carrierStatus changed: tracking.status_changed is due (to callbackUrl too). */
  statusChanged: boolean
  milestoneChanged: boolean
  /** A new estimated delivery, different from the stored one. */
  etaChanged: boolean
}

export interface UpdateContext {
  now: Date
  expireAfterMs: number
  /** How many of the snapshot's events were not stored yet. */
  newEventCount: number
}

/**
 * The task after a successful fetch: `snapshot` undefined means the carrier does not know the
 * number. Returned data only ever replaces stored data (rule 1); a task whose carrier has not
 * shown a new event (or the number at all) for `expireAfterMs` becomes `expired`.
 */
export function resolveUpdate(current: TaskRefreshState, snapshot: CarrierSnapshot | undefined, ctx: UpdateContext): TaskUpdate {
  const lastNewEventAt = ctx.newEventCount > 0 ? ctx.now : current.lastNewEventAt
  // A known code moves status and milestone together; an unknown one keeps both.
  let standardStatus = snapshot?.standardStatus ?? current.standardStatus
  let milestone = snapshot?.standardStatus ? consistentMilestone(snapshot.standardStatus, snapshot.milestone) : current.milestone
  const carrierStatus = snapshot?.carrierStatus ? snapshot.carrierStatus : current.carrierStatus
  const quietSince = lastNewEventAt ?? current.createdAt
  if (!isTerminal(standardStatus) && ctx.now.getTime() - quietSince.getTime() >= ctx.expireAfterMs) {
    standardStatus = 'expired'
    milestone = 'expired'
  }
  const eta = snapshot?.estimatedDeliveryAt ?? undefined
  return {
    standardStatus,
    milestone,
    carrierStatus,
    estimatedDeliveryAt: eta,
    originAddress: snapshot?.originAddress ?? undefined,
    destinationAddress: snapshot?.destinationAddress ?? undefined,
    proofOfDelivery: snapshot?.proofOfDelivery ?? undefined,
    lastNewEventAt,
    statusChanged: standardStatus !== current.standardStatus || carrierStatus !== current.carrierStatus,
    milestoneChanged: milestone !== current.milestone,
    etaChanged: eta !== undefined && eta.getTime() !== current.estimatedDeliveryAt?.getTime(),
  }
}

/** The snapshot's milestone when it belongs to the status (the tables guarantee it), else the status's plain one. */
function consistentMilestone(status: StandardStatus, milestone: Milestone | null): Milestone {
  return milestone && MILESTONES[milestone] === status ? milestone : plainMilestone(status)
}

/** An identity for an event that survives refetches: when, what, and where. */
export function eventKey(event: TrackingEvent): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        event.eventTime.toISOString(),
        event.eventCode,
        event.description,
        event.country,
        event.state,
        event.city,
        event.postalCode,
        event.address,
      ]),
    )
    .digest('base64url')
}

/** An address, or null when every part is empty (the carrier returned nothing usable). */
export function addressOrNull(address: Address): Address | null {
  return address.country || address.state || address.city || address.postalCode || address.address ? address : null
}

/**
 * The local offset a carrier wrote on a timestamp ("2024-08-20T12:41:57-04:00" → "-04:00"); null
 * without one, and for Z, which says UTC rather than the event's local time.
 */
export function writtenOffset(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const match = /T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?([+-])(\d{2}):?(\d{2})$/.exec(value.trim())
  return match ? `${match[1]}${match[2]}:${match[3]}` : null
}

/**
 * Parses a carrier timestamp. With an offset (or Z) it is exact; without one (FedEx sends
 * `2024-08-15T00:00:00` for date-only scans) it is read as UTC, never as the machine's local
 * time. Anything else is null.
 */
export function parseCarrierTime(value: unknown): Date | null {
  if (typeof value !== 'string') return null
  const text = value.trim()
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?))?(Z|[+-]\d{2}:?\d{2})?$/i.exec(text)
  if (!match) return null
  const [, date, time = '00:00:00', zone] = match
  const offset = zone ? (zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone) : 'Z'
  const parsed = new Date(`${date}T${time}${offset}`)
  return Number.isNaN(parsed.getTime()) ? null : parsed
}
