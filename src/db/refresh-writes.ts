import type { Milestone } from '../domain/milestones'
import type { StandardStatus } from '../domain/statuses'
import type { EndpointData } from '../domain/task-events'
import { addressJson, proofOfDeliveryJson, type JsonText } from '../domain/task-document'
import type { Address } from '../domain/tracking-task'
import { laneField, type Lane, type TransitState } from '../domain/transit-times'
import { isTerminal, type CarrierEvent, type TaskRefreshState, type TaskUpdate } from '../domain/tracking-update'
import type { WebhookTaskJson } from '../domain/webhook-payload'
import { intArray, textArray, textOrNullArray } from './array-literal'
import type { Queryable } from './database'
import { eventsViewOf } from './events-view'
import { predictionOf } from './prediction.sql'
import { taskDocumentOf } from './task-document.sql'
import { statementsOf } from './statements'
import { fetchedSchedule, fromNow, stillClaimed } from './task-schedule.sql'

/**
 * The statements of a refresh's transaction (services/refresh-apply.ts), each for all the tasks of
 * the answers applied together: lock the tasks, merge the events, write the tasks (the outbox's
 * are in outbox-writes.ts). Children are only ever written while their tasks are locked
 * (docs/architecture.md, "No orphans").
 */

/** A claimed task as its refresh finds it, locked: what the refresh decides from, and whose it is. */
export interface HeldTask extends TaskRefreshState {
  id: number
  userId: number
  /** Its carrier, and the stored addresses' countries and states, as lanes keep them (as the mapper wrote them, "" unknown). */
  lane: Lane
  transit: TransitState
}

/**
 * Locks the claimed tasks that are still due when they were claimed, under a live lease, with
 * their schedule rows (a stop, a refresh now, a delete or another worker's apply moved or removed
 * the others; a lapsed lease may have been claimed again), in id
 * order, as every multi-task statement of the refresh locks them, so that two transactions sharing
 * tasks wait for each other instead of deadlocking. A task row is always locked before its
 * schedule row, here as in a stop or a delete.
 */
export async function lockClaimedTasks(tx: Queryable, claims: { id: number; dueAt: string; leaseToken: string }[]): Promise<Map<number, HeldTask>> {
  if (claims.length === 0) return new Map()
  const { rows } = await tx.query<{
    id: number
    user_id: number
    standard_status: StandardStatus
    milestone: Milestone
    carrier_status: string
    estimated_delivery_at: Date | null
    created_at: Date
    last_new_event_at: Date | null
    carrier_code: string
    origin_country: string | null
    origin_state: string | null
    destination_country: string | null
    destination_state: string | null
    transit_started_at: Date | null
    first_estimated_delivery_at: Date | null
    passed_exception: boolean
    transit_counted: boolean
  }>(REFRESH_LOCK, [claims.map((c) => c.id), claims.map((c) => c.dueAt), claims.map((c) => c.leaseToken)], 'refresh_lock')
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        userId: r.user_id,
        standardStatus: r.standard_status,
        milestone: r.milestone,
        carrierStatus: r.carrier_status,
        estimatedDeliveryAt: r.estimated_delivery_at,
        createdAt: r.created_at,
        lastNewEventAt: r.last_new_event_at,
        lane: {
          carrierCode: r.carrier_code,
          originCountry: laneField(r.origin_country),
          originState: laneField(r.origin_state),
          destinationCountry: laneField(r.destination_country),
          destinationState: laneField(r.destination_state),
        },
        transit: {
          startedAt: r.transit_started_at,
          firstEstimatedDeliveryAt: r.first_estimated_delivery_at,
          passedException: r.passed_exception,
          counted: r.transit_counted,
        },
      },
    ]),
  )
}

export interface ScheduleWrite {
  id: number
  /** The due time it was claimed at: the row is written only while it still holds it. */
  dueAt: string
  /** Its round's claim: the row is written only while the claim's lease runs. */
  leaseToken: string
  nextRefreshInMs: number
}

/**
 * Records a fetch that changed nothing on each task's schedule row (due again, no failures,
 * fetched now), for the rows still held by their claims; the ids written. This row is all such a
 * fetch writes (a task that changes has its row written with it: updateTasks).
 */
export async function scheduleFetched(tx: Queryable, tasks: ScheduleWrite[]): Promise<Set<number>> {
  if (tasks.length === 0) return new Set()
  const { rows } = await tx.query<{ task_id: number }>(
    REFRESH_SCHEDULE_FETCHED,
    [tasks.map((t) => t.id), tasks.map((t) => t.dueAt), tasks.map((t) => t.leaseToken), tasks.map((t) => t.nextRefreshInMs)],
    'refresh_schedule_fetched',
  )
  return new Set(rows.map((r) => r.task_id))
}

export interface EventsToInsert {
  taskId: number
  events: CarrierEvent[]
}

/** Inserts the events not stored yet; the ones that were new, per task. */
export async function insertEvents(tx: Queryable, items: EventsToInsert[]): Promise<Map<number, CarrierEvent[]>> {
  const events = items.flatMap((item) => item.events.map((event) => ({ taskId: item.taskId, event })))
  if (events.length === 0) return new Map()
  const column = (key: Exclude<keyof CarrierEvent, 'eventTime' | 'utcOffset'>) => textArray(events.map((e) => e.event[key]))
  const { rows } = await tx.query<{ task_id: number; event_key: string; inserted: boolean }>(
    REFRESH_INSERT_EVENTS,
    [
      intArray(events.map((e) => e.taskId)),
      column('key'),
      textArray(events.map((e) => e.event.eventTime.toISOString())),
      column('eventCode'),
      column('status'),
      column('statusInfo'),
      column('description'),
      column('exceptionDescription'),
      column('country'),
      column('state'),
      column('city'),
      column('postalCode'),
      column('address'),
      column('milestone'),
      textOrNullArray(events.map((e) => e.event.utcOffset)),
    ],
    'refresh_insert_events',
  )
  const inserted = new Set(rows.filter((r) => r.inserted).map((r) => `${r.task_id}\u0000${r.event_key}`))
  const fresh = new Map<number, CarrierEvent[]>()
  for (const { taskId, event } of events) {
    if (!inserted.has(`${taskId}\u0000${event.key}`)) continue
    const list = fresh.get(taskId) ?? []
    list.push(event)
    fresh.set(taskId, list)
  }
  return fresh
}

export interface TaskWrite {
  id: number
  update: TaskUpdate
  transit: TransitState
  gainedEvents: boolean
  /** The fingerprint of the answer it was decided from; null: none (its next fetch is decided whatever it says). */
  fingerprint: string | null
  /** When it is due again; null: never (it is terminal). */
  nextRefreshInMs: number | null
  /** The change tells someone: read the interface's task back after writing it. */
  tells: boolean
  /** Its user has endpoints: read the full task back too. */
  full: boolean
}

/** A task as written, for the webhooks of its change. */
export interface WrittenTask {
  id: number
  /** The interface's task, without latestWebhook. */
  task: JsonText<WebhookTaskJson>
  /** The full task without latestWebhook, when asked for. */
  full: JsonText<EndpointData> | null
}

/**
 * Writes the decided state of every task, and its schedule row (due again, or never when
 * terminal), in one statement; both rows are locked already (lockClaimedTasks). A task that gained events gets its events view rebuilt from tracking_events, which already holds them.
 * Returns, for the tasks whose change tells someone, the task as written: its documents.
 */
export async function updateTasks(tx: Queryable, tasks: TaskWrite[]): Promise<WrittenTask[]> {
  if (tasks.length === 0) return []
  const column = <T>(f: (t: TaskWrite) => T) => tasks.map(f)
  // An address is stored as the documents write it (the documents embed it as it is).
  const json = (address: Address | undefined) => (address ? JSON.stringify(addressJson(address)) : null)
  const { rows } = await tx.query<WrittenTask>(
    REFRESH_UPDATE_TASKS,
    [
      column((t) => t.id),
      column((t) => t.update.standardStatus),
      column((t) => t.update.milestone),
      column((t) => t.update.carrierStatus),
      column((t) => t.update.estimatedDeliveryAt ?? null),
      column((t) => json(t.update.originAddress)),
      column((t) => json(t.update.destinationAddress)),
      column((t) => t.update.lastNewEventAt),
      column((t) => isTerminal(t.update.standardStatus)),
      column((t) => t.fingerprint),
      column((t) => t.gainedEvents),
      column((t) => t.update.statusChanged),
      column((t) => t.tells),
      column((t) => t.full),
      column((t) => t.nextRefreshInMs),
      column((t) => (t.update.proofOfDelivery ? JSON.stringify(proofOfDeliveryJson(t.update.proofOfDelivery)) : null)),
      column((t) => t.transit.startedAt),
      column((t) => t.transit.firstEstimatedDeliveryAt),
      column((t) => t.transit.passedException),
      column((t) => t.transit.counted),
    ],
    'refresh_update_tasks',
  )
  return rows
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const REFRESH_LOCK = sql(
  'refresh_lock',
  `SELECT t.id, t.user_id, t.standard_status, t.milestone, t.carrier_status, t.estimated_delivery_at, t.created_at, t.last_new_event_at,
          t.carrier_code, t.origin_address->>'country' AS origin_country, t.origin_address->>'state' AS origin_state,
          t.destination_address->>'country' AS destination_country, t.destination_address->>'state' AS destination_state,
          t.transit_started_at, t.first_estimated_delivery_at, t.passed_exception, t.transit_counted
     FROM tracking_tasks t
     JOIN task_schedule s ON s.task_id = t.id
     JOIN unnest($1::bigint[], $2::timestamptz[], $3::text[]) AS c (id, due_at, lease_token) ON c.id = t.id
    WHERE ${stillClaimed('s', 'c')}
    ORDER BY t.id
      FOR UPDATE OF t, s`,
)
const REFRESH_INSERT_EVENTS = sql(
  'refresh_insert_events',
  `INSERT INTO tracking_events (task_id, event_key, event_time, event_code, status, status_info, description,
                                exception_description, country, state, city, postal_code, address, milestone, utc_offset)
   SELECT * FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[],
                        $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[])
   -- A stored event is left as it is, but for an offset it was stored without and now has
   -- (an event's identity leaves the offset out): written once, not counted as new.
   ON CONFLICT (task_id, event_key) DO UPDATE SET utc_offset = EXCLUDED.utc_offset
     WHERE tracking_events.utc_offset IS NULL AND EXCLUDED.utc_offset IS NOT NULL
   RETURNING task_id, event_key, xmax = 0 AS inserted`,
)
const REFRESH_UPDATE_TASKS = sql(
  'refresh_update_tasks',
  `WITH scheduled AS (
     -- The schedule rows, locked by lockClaimedTasks: written in the same statement, and read
     -- from here by the full task below (the table shows the statement's start).
     UPDATE task_schedule s
        SET ${fetchedSchedule(fromNow('u.next_refresh_in_ms'))}
       FROM unnest($1::bigint[], $15::float8[]) AS u (id, next_refresh_in_ms)
      WHERE s.task_id = u.id
      RETURNING s.*
   ),
   updated AS (
     UPDATE tracking_tasks t
        SET standard_status = u.standard_status,
            milestone = u.milestone,
            carrier_status = u.carrier_status,
            estimated_delivery_at = COALESCE(u.estimated_delivery_at, t.estimated_delivery_at),
            origin_address = COALESCE(u.origin_address, t.origin_address),
            destination_address = COALESCE(u.destination_address, t.destination_address),
            proof_of_delivery = COALESCE(u.proof_of_delivery, t.proof_of_delivery),
            last_new_event_at = u.last_new_event_at,
            transit_started_at = u.transit_started_at,
            first_estimated_delivery_at = u.first_estimated_delivery_at,
            passed_exception = u.passed_exception,
            transit_counted = u.transit_counted,
            -- Made again at every change, from the lanes as they are now (prediction.sql.ts).
            (predicted_delivery_at, prediction) = (${predictionOf({
              userId: 't.user_id',
              carrierCode: 't.carrier_code',
              startedAt: 'u.transit_started_at',
              standardStatus: 'u.standard_status',
              originAddress: 'COALESCE(u.origin_address, t.origin_address)',
              destinationAddress: 'COALESCE(u.destination_address, t.destination_address)',
            })}),
            events_view = CASE WHEN u.gained_events THEN ${eventsViewOf('t.id')} ELSE t.events_view END,
            answer_fingerprint = u.answer_fingerprint,
            inactive_since = CASE WHEN u.terminal THEN now() END,
            -- Moves only when something the user can see changed, not on every fetch.
            updated_at = CASE WHEN u.status_changed OR u.milestone <> t.milestone OR u.gained_events OR u.terminal
                                OR (u.estimated_delivery_at IS NOT NULL AND u.estimated_delivery_at IS DISTINCT FROM t.estimated_delivery_at)
                                OR (u.origin_address IS NOT NULL AND u.origin_address::text IS DISTINCT FROM t.origin_address::text)
                                OR (u.destination_address IS NOT NULL AND u.destination_address::text IS DISTINCT FROM t.destination_address::text)
                                OR (u.proof_of_delivery IS NOT NULL AND u.proof_of_delivery::text IS DISTINCT FROM t.proof_of_delivery::text)
                              THEN now() ELSE t.updated_at END
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::json[], $7::json[], $8::timestamptz[], $9::boolean[],
                   $10::text[], $11::boolean[], $12::boolean[], $13::boolean[], $14::boolean[], $16::json[],
                   $17::timestamptz[], $18::timestamptz[], $19::boolean[], $20::boolean[])
            AS u (id, standard_status, milestone, carrier_status, estimated_delivery_at, origin_address, destination_address, last_new_event_at, terminal,
                  answer_fingerprint, gained_events, status_changed, tells, full_events, proof_of_delivery,
                  transit_started_at, first_estimated_delivery_at, passed_exception, transit_counted)
      WHERE t.id = u.id
      RETURNING t.*, u.tells, u.full_events
     )
   SELECT t.id, ${taskDocumentOf('query', { latestWebhook: false })} AS task,
          CASE WHEN t.full_events THEN ${taskDocumentOf('full', { latestWebhook: false, schedule: 'scheduled' })} END AS full
     FROM updated t
    WHERE t.tells`,
)
const REFRESH_SCHEDULE_FETCHED = sql(
  'refresh_schedule_fetched',
  `UPDATE task_schedule s
      SET ${fetchedSchedule(fromNow('u.next_refresh_in_ms'))}
     FROM unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::float8[]) AS u (task_id, due_at, lease_token, next_refresh_in_ms)
    WHERE s.task_id = u.task_id
      AND ${stillClaimed('s', 'u')}
   RETURNING s.task_id`,
)
