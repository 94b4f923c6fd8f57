import type { EventType } from './event-types'
import type { CarrierChangeReason } from './carrier-change'
import type { Milestone } from './milestones'
import { messageTrigger, plannedMessage, type MessageChannel, type NotificationSettings } from './notifications'
import { CALLBACK, CHANNELS, type Channel, type PlannedDelivery, type PlannedWebhook } from './outbox'
import type { StandardStatus } from './statuses'
import type { FullEventJson, FullTaskJson, JsonText } from './task-document'
import type { TaskUpdate } from './tracking-update'
import { statusChangedBody, type StatusChangedPayload, type WebhookTaskJson } from './webhook-payload'

/**
 * What a change of a task tells whom, channel by channel (PLANS). On the webhook channel
 * (docs/webhooks.md): the task's callbackUrl gets the interface's `tracking.status_changed` and
 * nothing else; each enabled endpoint of the task's user gets every event type it chose, when its
 * carrier and milestone filters (if any) hold the task. Which event types a change makes happen is
 * decided here, by one rule per type (HAPPENS); the deletion makes `tracking.deleted`. Pure: the
 * caller stores the deliveries in the outbox in the transaction of the change.
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

/** Who may be told of a change of a user's task, besides the task's own callback. */
export interface Audience {
  /** The user's enabled endpoints. */
  endpoints: readonly EndpointSubscription[]
  /**
   * The task's recipient when a channel the user turned on can reach them (docs/notifications.md):
   * the user's settings and those channels.
   */
  recipient?: { settings: NotificationSettings; channels: readonly MessageChannel[] }
}

/** The task before a fetch, as the rules compare it. */
export interface TaskBefore {
  standardStatus: StandardStatus
  carrierStatus: string
  milestone: Milestone
  estimatedDeliveryAt: Date | null
}

/** What one fetch changed: all the rules read. */
export interface ChangeFacts {
  previous: TaskBefore
  update: TaskUpdate
  /** How many of the fetch's events were not stored yet. */
  newEventCount: number
}

/** The event types a fetch can make happen; `tracking.deleted` is the deletion's, `tracking.carrier_changed` the carrier change's. */
export type ChangeEventType = Exclude<EventType, 'tracking.deleted' | 'tracking.carrier_changed'>

/** Each event type's rule: whether a change makes it happen. A new event type must have one here. */
const HAPPENS: Record<ChangeEventType, (facts: ChangeFacts) => boolean> = {
  'tracking.status_changed': ({ update }) => update.statusChanged,
  'tracking.milestone_changed': ({ update }) => update.milestoneChanged,
  'tracking.eta_changed': ({ update }) => update.etaChanged,
  'tracking.events_added': ({ newEventCount }) => newEventCount > 0,
}

/** The event types a change makes happen, in the order their webhooks are written; none: nobody is told. */
export function eventsOfChange(facts: ChangeFacts): ChangeEventType[] {
  return (Object.keys(HAPPENS) as ChangeEventType[]).filter((type) => HAPPENS[type](facts))
}

/** A task's change as one fetch made it, with the task as it is after it. */
export interface TaskChange extends ChangeFacts {
  /** The interface's task after the change (without latestWebhook), as the database wrote it: the callback's payload. */
  task: JsonText<WebhookTaskJson>
  /** The full task after the change, with its events (without latestWebhook); only read when the user has endpoints. */
  full: EndpointData | undefined
  /** The events this fetch added, as the full task writes them (for the endpoints). */
  newEvents: FullEventJson[]
  /** The time of the newest event the carrier reported (null: none), for the notifications' seven days. */
  newestEventAt: Date | null
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
  | { type: 'tracking.carrier_changed'; timestamp: string; data: EndpointData & CarrierChangeFacts }

/** What a carrier change adds to the task in its event. */
export interface CarrierChangeFacts {
  previousCarrierCode: string
  reason: CarrierChangeReason
}

export function endpointWants(endpoint: EndpointSubscription, type: EventType, task: { carrierCode: string; milestone: Milestone }): boolean {
  return (
    endpoint.eventTypes.includes(type) &&
    (endpoint.carrierCodes.length === 0 || endpoint.carrierCodes.includes(task.carrierCode)) &&
    (endpoint.milestones.length === 0 || endpoint.milestones.includes(task.milestone))
  )
}

/** Each event type's body for the endpoints, from a change and the full task after it. */
const ENDPOINT_BODIES: { [T in ChangeEventType]: (change: TaskChange, full: EndpointData, timestamp: string) => Extract<EndpointPayloadJson, { type: T }> } = {
  'tracking.status_changed': ({ previous }, full, timestamp) => ({
    type: 'tracking.status_changed',
    timestamp,
    data: { ...full, previousStandardStatus: previous.standardStatus, previousCarrierStatus: previous.carrierStatus },
  }),
  'tracking.milestone_changed': ({ previous }, full, timestamp) => ({
    type: 'tracking.milestone_changed',
    timestamp,
    data: { ...full, previousMilestone: previous.milestone },
  }),
  'tracking.eta_changed': ({ previous }, full, timestamp) => ({
    type: 'tracking.eta_changed',
    timestamp,
    data: { ...full, previousEstimatedDeliveryAt: previous.estimatedDeliveryAt?.toISOString() ?? null },
  }),
  'tracking.events_added': ({ newEvents }, { events: _all, ...task }, timestamp) => ({
    type: 'tracking.events_added',
    timestamp,
    data: { ...task, newEvents },
  }),
}

/** The webhooks a change makes: the callback's, and each endpoint's that wants one of its events. */
function webhooksOfChange(change: TaskChange, { endpoints }: Audience, now: Date): PlannedWebhook[] {
  const happened = eventsOfChange(change)
  const deliveries: PlannedWebhook[] = []
  if (happened.includes('tracking.status_changed')) {
    deliveries.push({ channel: 'webhook', target: CALLBACK, type: 'tracking.status_changed', payload: statusChangedBody(change.task, change.previous, now) })
  }
  const { full } = change
  if (!full || endpoints.length === 0) return deliveries
  const timestamp = now.toISOString()
  for (const type of happened) {
    // One body for every endpoint of one event: the same event, signed by each with its own secret.
    const body = ENDPOINT_BODIES[type](change, full, timestamp)
    for (const endpoint of endpoints) {
      if (endpointWants(endpoint, type, full))
        deliveries.push({ channel: 'webhook', target: { kind: 'endpoint', endpointId: endpoint.id }, type, payload: body })
    }
  }
  return deliveries
}

/** What each channel is told of a change. A new channel must have its plan here. */
const PLANS: Record<Channel, (change: TaskChange, audience: Audience, now: Date) => PlannedDelivery[]> = {
  webhook: webhooksOfChange,
  email: (change, audience, now) => messagesOfChange('email', change, audience, now),
  sms: (change, audience, now) => messagesOfChange('sms', change, audience, now),
}

/** The message of a change to the task's recipient on one channel: at most one, its new milestone's. */
function messagesOfChange(channel: MessageChannel, change: TaskChange, { recipient }: Audience, now: Date): PlannedDelivery[] {
  if (!recipient?.channels.includes(channel) || !change.update.milestoneChanged) return []
  const trigger = messageTrigger(
    channel,
    { previous: change.previous.milestone, milestone: change.update.milestone, newestEventAt: change.newestEventAt },
    recipient.settings,
    now,
  )
  return trigger ? [plannedMessage(channel, trigger)] : []
}

/** Every delivery a change makes, channel by channel. */
export function deliveriesOfChange(change: TaskChange, audience: Audience, now: Date): PlannedDelivery[] {
  return CHANNELS.flatMap((channel) => PLANS[channel](change, audience, now))
}

/** The deliveries of a task's deletion: `tracking.deleted` to each endpoint that wants it, with the task as it was. */
export function deliveriesOfDeletion(full: EndpointData, { endpoints }: Audience, now: Date): PlannedWebhook[] {
  const wanting = endpoints.filter((e) => endpointWants(e, 'tracking.deleted', full))
  if (wanting.length === 0) return []
  const payload: EndpointPayloadJson = { type: 'tracking.deleted', timestamp: now.toISOString(), data: full }
  return wanting.map((e) => ({ channel: 'webhook', target: { kind: 'endpoint', endpointId: e.id }, type: 'tracking.deleted', payload }))
}

/** The deliveries of a carrier change: `tracking.carrier_changed` to each endpoint that wants it, with the task as the change left it. */
export function deliveriesOfCarrierChange(full: EndpointData, facts: CarrierChangeFacts, { endpoints }: Audience, now: Date): PlannedWebhook[] {
  const wanting = endpoints.filter((e) => endpointWants(e, 'tracking.carrier_changed', full))
  if (wanting.length === 0) return []
  const payload: EndpointPayloadJson = { type: 'tracking.carrier_changed', timestamp: now.toISOString(), data: { ...full, ...facts } }
  return wanting.map((e) => ({ channel: 'webhook', target: { kind: 'endpoint', endpointId: e.id }, type: 'tracking.carrier_changed', payload }))
}

export type { PlannedDelivery, StatusChangedPayload }
