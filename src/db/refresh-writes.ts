import { randomBytes } from 'node:crypto'
import type { EndpointSubscription, PlannedDelivery } from '../domain/task-events'
import { isTerminal, type CarrierEvent, type TaskUpdate } from '../domain/tracking-update'
import type { Queryable } from './database'
import { intArray, textArray } from './array-literal'
import { RawJson } from '../domain/json-text'
import { addressJson } from '../domain/task-json'
import type { Address } from '../domain/tracking-task'
import { eventsViewOf } from './events-view'
import { fullTaskDocumentOf } from './task-document'
import { TASK_VIEW_COLUMNS } from './task.sql'
import type { TaskViewRow } from './task.repository'
import type { EventType } from '../domain/event-types'
import type { Milestone } from '../domain/milestones'

/**
 * The statements of a refresh's transaction, each for all the tasks of the answers applied
 * together (refresh.repository.ts): events, task rows, the outbox. Children only ever written here,
 * while their tasks are locked (docs/architecture.md, "No orphans").
 */

export interface EventsToInsert {
  taskId: number
  events: CarrierEvent[]
}

/** Inserts the events not stored yet; the ones that were new, per task. */
export async function insertEvents(tx: Queryable, items: EventsToInsert[]): Promise<Map<number, CarrierEvent[]>> {
  const events = items.flatMap((item) => item.events.map((event) => ({ taskId: item.taskId, event })))
  if (events.length === 0) return new Map()
  const column = (key: Exclude<keyof CarrierEvent, 'eventTime'>) => textArray(events.map((e) => e.event[key]))
  const { rows } = await tx.query<{ task_id: number; event_key: string }>(
    `INSERT INTO tracking_events (task_id, event_key, event_time, event_code, status, status_info, description,
                                  exception_description, country, state, city, postal_code, address, milestone)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[],
                          $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
     ON CONFLICT (task_id, event_key) DO NOTHING
     RETURNING task_id, event_key`,
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
    ],
    'refresh_insert_events',
  )
  const inserted = new Set(rows.map((r) => `${r.task_id}\u0000${r.event_key}`))
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
  gainedEvents: boolean
  nextRefreshInMs: number
  /** The change tells someone: read the task back after writing it. */
  tells: boolean
  /** Its user has endpoints: read the full task back too. */
  full: boolean
}

/** A task as written: the interface's view (its events as kept) and, when asked, the full task's document. */
export type WrittenTask = TaskViewRow & { document: string | null }

/**
 * Writes the decided state of every task in one statement, and releases their leases. A task that
 * gained events gets its events view rebuilt from tracking_events, which already holds them.
 * Returns, for the tasks whose change tells someone, the task as written.
 */
export async function updateTasks(tx: Queryable, tasks: TaskWrite[]): Promise<WrittenTask[]> {
  if (tasks.length === 0) return []
  const column = <T>(f: (t: TaskWrite) => T) => tasks.map(f)
  // An address is stored as the full task writes it: compact, its members in the interface's order.
  const json = (address: Address | undefined) => (address ? JSON.stringify(addressJson(address)) : null)
  const { rows } = await tx.query<WrittenTask>(
    `WITH updated AS (
       UPDATE tracking_tasks t
          SET standard_status = u.standard_status,
              milestone = u.milestone,
              carrier_status = u.carrier_status,
              estimated_delivery_at = COALESCE(u.estimated_delivery_at, t.estimated_delivery_at),
              origin_address = COALESCE(u.origin_address, t.origin_address),
              destination_address = COALESCE(u.destination_address, t.destination_address),
              last_new_event_at = u.last_new_event_at,
              events_view = CASE WHEN u.gained_events THEN ${eventsViewOf('t.id')} ELSE t.events_view END,
              last_fetched_at = now(),
              refresh_failures = 0,
              next_refresh_at = CASE WHEN u.terminal THEN NULL ELSE now() + make_interval(secs => u.next_refresh_in_ms / 1000) END,
              inactive_since = CASE WHEN u.terminal THEN now() END,
              refresh_lease_owner = NULL,
              refresh_lease_until = NULL,
              -- Moves only when something the user can see changed, not on every fetch.
              updated_at = CASE WHEN u.status_changed OR u.milestone <> t.milestone OR u.gained_events OR u.terminal
                                  OR (u.estimated_delivery_at IS NOT NULL AND u.estimated_delivery_at IS DISTINCT FROM t.estimated_delivery_at)
                                  OR (u.origin_address IS NOT NULL AND u.origin_address::text IS DISTINCT FROM t.origin_address::text)
                                  OR (u.destination_address IS NOT NULL AND u.destination_address::text IS DISTINCT FROM t.destination_address::text)
                                THEN now() ELSE t.updated_at END
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::json[], $7::json[], $8::timestamptz[], $9::boolean[],
                     $10::float8[], $11::boolean[], $12::boolean[], $13::boolean[], $14::boolean[])
              AS u (id, standard_status, milestone, carrier_status, estimated_delivery_at, origin_address, destination_address, last_new_event_at, terminal,
                    next_refresh_in_ms, gained_events, status_changed, tells, full_events)
        WHERE t.id = u.id
        RETURNING t.*, u.tells, u.full_events
       )
     SELECT ${TASK_VIEW_COLUMNS}, NULL::json AS latest_webhook,
            CASE WHEN t.full_events THEN ${fullTaskDocumentOf({ events: true, latestWebhook: false })} END AS document
       FROM updated t
      WHERE t.tells`,
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
      column((t) => t.nextRefreshInMs),
      column((t) => t.gainedEvents),
      column((t) => t.update.statusChanged),
      column((t) => t.tells),
      column((t) => t.full),
    ],
    'refresh_update_tasks',
  )
  return rows
}

interface EndpointRow {
  id: number
  user_id: number
  event_types: EventType[]
  carrier_codes: string[]
  milestones: Milestone[]
}

/**
 * The enabled endpoints of these users, by user (none: no entry), share-locked until the
 * transaction ends: an endpoint disabled or deleted meanwhile waits for it, so that no delivery is
 * written for an endpoint that is gone, or disabled after its waiting deliveries were failed.
 */
export async function endpointsOf(tx: Queryable, userIds: number[]): Promise<Map<number, EndpointSubscription[]>> {
  const byUser = new Map<number, EndpointSubscription[]>()
  if (userIds.length === 0) return byUser
  const { rows } = await tx.query<EndpointRow>(
    `SELECT id, user_id, event_types, carrier_codes, milestones FROM webhook_endpoints WHERE user_id = ANY($1::bigint[]) AND enabled ORDER BY id FOR SHARE`,
    [[...new Set(userIds)]],
    'endpoints_of_users',
  )
  for (const row of rows) {
    const list = byUser.get(row.user_id) ?? []
    list.push({ id: row.id, eventTypes: row.event_types, carrierCodes: row.carrier_codes, milestones: row.milestones })
    byUser.set(row.user_id, list)
  }
  return byUser
}

export interface DeliveryToInsert extends PlannedDelivery {
  taskId: number
  userId: number
}

/** The outbox rows, due now, in one statement; each its own webhook-id (stable across its retries). */
export async function insertDeliveries(tx: Queryable, deliveries: DeliveryToInsert[]): Promise<void> {
  if (deliveries.length === 0) return
  // One body may serve several endpoints (one event): written once.
  const texts = new Map<object, string>()
  const text = (payload: object) => {
    if (payload instanceof RawJson) return payload.text
    let written = texts.get(payload)
    if (written === undefined) texts.set(payload, (written = JSON.stringify(payload)))
    return written
  }
  // The bodies travel as one text, a line each: JSON.stringify writes no line break, and an array
  // literal would have every quote in them escaped by pg and unescaped by the server.
  await tx.query(
    `INSERT INTO webhook_deliveries (task_id, user_id, endpoint_id, webhook_id, event_type, payload, status, next_attempt_at)
     SELECT task_id, user_id, endpoint_id, webhook_id, event_type, payload::json, 'pending', now()
       FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], string_to_array($6, E'\\n'))
            AS d (task_id, user_id, endpoint_id, webhook_id, event_type, payload)`,
    [
      intArray(deliveries.map((d) => d.taskId)),
      intArray(deliveries.map((d) => d.userId)),
      deliveries.map((d) => d.endpointId),
      textArray(deliveries.map(() => `msg_${randomBytes(16).toString('hex')}`)),
      textArray(deliveries.map((d) => d.type)),
      deliveries.map((d) => text(d.payload)).join('\n'),
    ],
    'insert_deliveries',
  )
}
