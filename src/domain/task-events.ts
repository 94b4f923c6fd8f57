import type { EventType } from './event-types'
import type { Milestone } from './milestones'
import type { StandardStatus } from './statuses'
import type { FullEventJson, FullTaskJson } from './task-json'
import type { RawJson } from './json-text'
import type { TaskView } from './tracking-task'
import type { TaskUpdate } from './tracking-update'
import { statusChangedBody, type StatusChangedPayload } from './webhook-payload'

/**
 * What a change of a task tells whom (docs/webhooks.md): the task's callbackUrl gets the
 * interface's `tracking.status_changed` and nothing else; each enabled endpoint of the task's user
 * gets every event type it chose, when its carrier and milestone filters (if any) hold the task.
 * Pure: the caller stores the deliveries in the transaction of the change.
 */

/** An endpoint as the events need it. */
export interface EndpointSubscription {
  id: number
  eventTypes: readonly EventType[]
  /** Empty: every carrier. */
  carrierCodes: readonly string[]
  /** Empty: every milestone. */
  milestones: readonly Milestone[]
}

export interface PlannedDelivery {
  /** null: the task's own callbackUrl. */
  endpointId: number | null
  type: EventType
  /** An object, or JSON text written already. */
  payload: object | RawJson
}

/** A task's change as one fetch made it. */
export interface TaskChange {
  previous: { standardStatus: StandardStatus; carrierStatus: string; milestone: Milestone; estimatedDeliveryAt: Date | null }
  update: TaskUpdate
  /** The task as the interface shows it, after the change (the callback's payload). */
  task: TaskView
  /** The full task after the change, with its events (without latestWebhook); only read when the user has endpoints. */
  full: EndpointData | undefined
  /** The events this fetch added, as the full task writes them. */
  newEvents: FullEventJson[]
}

/** The full task as the endpoints' events carry it: without latestWebhook, with its events. */
export type EndpointData = Omit<FullTaskJson, 'latestWebhook' | 'events'> & { events: FullEventJson[] }
type TaskData = Omit<EndpointData, 'events'>

/** The body of each endpoint event type (docs/webhooks.md; the OpenAPI `webhooks` agree by type). */
export type EndpointPayloadJson =
  | { type: 'tracking.status_changed'; timestamp: string; data: EndpointData & { previousStandardStatus: StandardStatus; previousCarrierStatus: string } }
  | { type: 'tracking.milestone_changed'; timestamp: string; data: EndpointData & { previousMilestone: Milestone } }
  | { type: 'tracking.eta_changed'; timestamp: string; data: EndpointData & { previousEstimatedDeliveryAt: string | null } }
  | { type: 'tracking.events_added'; timestamp: string; data: TaskData & { newEvents: FullEventJson[] } }
  | { type: 'tracking.deleted'; timestamp: string; data: EndpointData }

export function endpointWants(endpoint: EndpointSubscription, type: EventType, task: { carrierCode: string; milestone: Milestone }): boolean {
  return (
    endpoint.eventTypes.includes(type) &&
    (endpoint.carrierCodes.length === 0 || endpoint.carrierCodes.includes(task.carrierCode)) &&
    (endpoint.milestones.length === 0 || endpoint.milestones.includes(task.milestone))
  )
}

/** Every delivery a change makes: the callback's, and each endpoint's that wants one of its events. */
export function deliveriesOfChange(change: TaskChange, endpoints: readonly EndpointSubscription[], now: Date): PlannedDelivery[] {
  const { update, previous, full } = change
  const deliveries: PlannedDelivery[] = []
  if (update.statusChanged) deliveries.push({ endpointId: null, type: 'tracking.status_changed', payload: statusChangedBody(change.task, previous, now) })
  if (!full || endpoints.length === 0) return deliveries
  const timestamp = now.toISOString()
  const happened: (() => EndpointPayloadJson)[] = []
  if (update.statusChanged) {
    happened.push(() => ({ type: 'tracking.status_changed', timestamp, data: { ...full, previousStandardStatus: previous.standardStatus, previousCarrierStatus: previous.carrierStatus } }))
  }
  if (update.milestoneChanged) happened.push(() => ({ type: 'tracking.milestone_changed', timestamp, data: { ...full, previousMilestone: previous.milestone } }))
  if (update.etaChanged) {
    happened.push(() => ({ type: 'tracking.eta_changed', timestamp, data: { ...full, previousEstimatedDeliveryAt: previous.estimatedDeliveryAt?.toISOString() ?? null } }))
  }
  if (change.newEvents.length > 0) {
    const { events: _all, ...task } = full
    happened.push(() => ({ type: 'tracking.events_added', timestamp, data: { ...task, newEvents: change.newEvents } }))
  }
  for (const payload of happened) {
    // One body for every endpoint of one event: the same event, signed by each with its own secret.
    const body = payload()
    for (const endpoint of endpoints) if (endpointWants(endpoint, body.type, full)) deliveries.push({ endpointId: endpoint.id, type: body.type, payload: body })
  }
  return deliveries
}

/** The deliveries of a task's deletion: `tracking.deleted` to each endpoint that wants it, with the task as it was. */
export function deliveriesOfDeletion(full: EndpointData, endpoints: readonly EndpointSubscription[], now: Date): PlannedDelivery[] {
  const wanting = endpoints.filter((e) => endpointWants(e, 'tracking.deleted', full))
  if (wanting.length === 0) return []
  const payload: EndpointPayloadJson = { type: 'tracking.deleted', timestamp: now.toISOString(), data: full }
  return wanting.map((e) => ({ endpointId: e.id, type: 'tracking.deleted', payload }))
}

export type { StatusChangedPayload }
