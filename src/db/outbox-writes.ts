import { randomBytes } from 'node:crypto'
import type { EventType } from '../domain/event-types'
import { RawJson } from '../domain/json-text'
import type { Milestone } from '../domain/milestones'
import { deliveryType, endpointIdOf, type PlannedDelivery } from '../domain/outbox'
import type { EndpointSubscription } from '../domain/task-events'
import { intArray, textArray } from './array-literal'
import type { Queryable } from './database'
import { statementsOf } from './statements'

/**
 * The outbox's writes of a unit of work that tells someone of a change (a refresh's, a delete's):
 * whom it may tell (the user's enabled endpoints, locked until it commits), and the deliveries.
 */

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
  const { rows } = await tx.query<EndpointRow>(ENDPOINTS_OF_USERS, [[...new Set(userIds)]], 'endpoints_of_users')
  for (const row of rows) {
    const list = byUser.get(row.user_id) ?? []
    list.push({ id: row.id, eventTypes: row.event_types, carrierCodes: row.carrier_codes, milestones: row.milestones })
    byUser.set(row.user_id, list)
  }
  return byUser
}

export type DeliveryToInsert = PlannedDelivery & {
  taskId: number
  userId: number
}

/**
 * The outbox rows, due now, in one statement; each its own message id (stable across its retries).
 * A message to a recipient that its task has had at this milestone on this channel is not written
 * again (deliveries_message_once).
 */
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
    INSERT_DELIVERIES,
    [
      intArray(deliveries.map((d) => d.taskId)),
      intArray(deliveries.map((d) => d.userId)),
      textArray(deliveries.map((d) => d.channel)),
      textArray(deliveries.map((d) => d.target.kind)),
      deliveries.map((d) => endpointIdOf(d.target)),
      textArray(deliveries.map(() => `msg_${randomBytes(16).toString('hex')}`)),
      textArray(deliveries.map(deliveryType)),
      deliveries.map((d) => text(d.payload)).join('\n'),
      deliveries.map((d) => (d.channel === 'webhook' ? null : d.trigger)),
    ],
    'insert_deliveries',
  )
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const ENDPOINTS_OF_USERS = sql(
  'endpoints_of_users',
  `SELECT id, user_id, event_types, carrier_codes, milestones FROM webhook_endpoints WHERE user_id = ANY($1::bigint[]) AND enabled ORDER BY id FOR SHARE`,
)
const INSERT_DELIVERIES = sql(
  'insert_deliveries',
  `INSERT INTO deliveries (task_id, user_id, channel, target, endpoint_id, webhook_id, event_type, payload, trigger, status, next_attempt_at)
   SELECT task_id, user_id, channel, target, endpoint_id, webhook_id, event_type, payload::json, trigger, 'pending', now()
     FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], string_to_array($8, E'\\n'), $9::text[])
          AS d (task_id, user_id, channel, target, endpoint_id, webhook_id, event_type, payload, trigger)
   ON CONFLICT (task_id, trigger, channel) WHERE trigger IS NOT NULL DO NOTHING`,
)
