import { Type, type Static, type TProperties } from '@sinclair/typebox'
import { CARRIER_CHANGE_REASONS } from '../../domain/carrier-change'
import { TEST_EVENT_TYPE } from '../../domain/event-types'
import type { EndpointPayloadJson } from '../../domain/task-events'
import type { StatusChangedPayload } from '../../domain/webhook-payload'
import { component, DateTime, Id, NullableDateTime, ref, stringEnum } from './common.schema'
import { FullTask, FullTrackingEvent, Milestone, StandardStatus, Task } from './task.schema'

/** The bodies the service POSTs to receivers (the OpenAPI document's `webhooks`). */

const { latestWebhook: _latest, ...taskMembers } = Task.properties

export const StatusChangedEvent = component(
  'StatusChangedEvent',
  Type.Object(
    {
      type: Type.Literal('tracking.status_changed'),
      timestamp: { ...DateTime, description: 'when the notification was made' },
      data: Type.Object({
        ...taskMembers,
        previousStandardStatus: ref(StandardStatus),
        previousCarrierStatus: Type.String(),
      }),
    },
    {
      description: "a task's standardStatus or carrierStatus changed: the task as the query endpoint answers it (without latestWebhook), with what was before",
    },
  ),
)

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const statusChangedAgrees: Same<Static<typeof StatusChangedEvent>, StatusChangedPayload> = true
void statusChangedAgrees

// The account endpoints' events (docs/webhooks.md, "Endpoints"): the full task without
// latestWebhook, with its events except in tracking.events_added, which carries newEvents.
const { latestWebhook: _fullLatest, events: _fullEvents, ...fullTaskMembers } = FullTask.properties
const events = Type.Array(ref(FullTrackingEvent), { description: 'ascending by eventTime' })

function endpointEvent<const T extends string, P extends TProperties>(type: T, id: string, data: P, description: string) {
  return component(
    id,
    Type.Object(
      { type: Type.Literal(type), timestamp: { ...DateTime, description: 'when the event was made' }, data: Type.Object({ ...fullTaskMembers, ...data }) },
      { description: `${description} (to account endpoints)` },
    ),
  )
}

export const EndpointStatusChangedEvent = endpointEvent(
  'tracking.status_changed',
  'EndpointStatusChangedEvent',
  { events, previousStandardStatus: ref(StandardStatus), previousCarrierStatus: Type.String() },
  "a task's standardStatus or carrierStatus changed",
)
export const MilestoneChangedEvent = endpointEvent(
  'tracking.milestone_changed',
  'MilestoneChangedEvent',
  { events, previousMilestone: ref(Milestone) },
  "a task's milestone changed",
)
export const EtaChangedEvent = endpointEvent(
  'tracking.eta_changed',
  'EtaChangedEvent',
  { events, previousEstimatedDeliveryAt: NullableDateTime },
  "a task's estimatedDeliveryAt changed",
)
export const EventsAddedEvent = endpointEvent(
  'tracking.events_added',
  'EventsAddedEvent',
  { newEvents: Type.Array(ref(FullTrackingEvent), { description: 'only the events this fetch added, ascending by eventTime; never sent twice' }) },
  'a fetch found new tracking events',
)
export const DeletedEvent = endpointEvent(
  'tracking.deleted',
  'DeletedEvent',
  { events },
  'a task was deleted (by its user or by retention): the task as it was',
)

export const CarrierChangedEvent = endpointEvent(
  'tracking.carrier_changed',
  'CarrierChangedEvent',
  {
    events,
    previousCarrierCode: Type.String({ description: 'the carrier the task was on' }),
    reason: stringEnum(CARRIER_CHANGE_REASONS, {
      description: 'user: PATCH …/{taskId} or the console; auto_correct: the worker found the number with this carrier',
    }),
  },
  "a task was moved to another carrier: the task as the change left it (pending, no events, due now); the new carrier's first fetch then tells as any fetch does",
)

export const TestEvent = component(
  'TestEvent',
  Type.Object(
    {
      type: Type.Literal(TEST_EVENT_TYPE),
      timestamp: { ...DateTime, description: 'when the test was made' },
      data: Type.Object({ endpointId: Id, message: Type.String() }),
    },
    { description: 'the test call of an endpoint (POST /openapi/webhook-endpoints/{endpointId}/test); never retried' },
  ),
)

const endpointPayloadAgrees: Same<
  | Static<typeof EndpointStatusChangedEvent>
  | Static<typeof MilestoneChangedEvent>
  | Static<typeof EtaChangedEvent>
  | Static<typeof EventsAddedEvent>
  | Static<typeof DeletedEvent>
  | Static<typeof CarrierChangedEvent>,
  EndpointPayloadJson
> = true
void endpointPayloadAgrees
