import {
  FULL_TASK,
  LATEST_WEBHOOK,
  QUERY_TASK,
  type FullTaskMember,
  type MemberKind,
  type Members,
  type QueryTaskMember,
  type WebhookSummaryJson,
} from '../domain/task-document'
import { fullEventsOf } from './events-view'
import { TERMINAL_STATUSES } from '../domain/tracking-update'
import { ANY, MIN_LANE_DELIVERIES, type Basis } from '../domain/transit-times'

/**
 * The task documents as the database writes them: one JSON text per task, with the members,
 * order and formats of domain/task-document.ts, written compactly as JSON.stringify writes
 * (row_to_json). Every task document the service answers or sends is one of these texts: a page of
 * the list, a query's answer, a webhook's task, with nothing for Node to parse or serialise.
 */

/** An SQL expression written as JavaScript's toISOString writes a Date. */
export const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** A delivery's nextRetryAt: its next attempt's time while it waits to be retried, else null (`d` a webhook_deliveries row). */
export const nextRetryAtOf = (d: string) => `CASE WHEN ${d}.status = 'retry_wait' THEN ${d}.next_attempt_at END`

/** Where each member of a task document comes from, `t` being the tracking_tasks row. */
const TASK_SOURCES: Record<QueryTaskMember | FullTaskMember, string> = {
  taskId: 't.id',
  carrierCode: 't.carrier_code',
  trackingNumber: 't.tracking_number',
  externalReferenceNo: 't.external_reference_no',
  callbackUrl: 't.callback_url',
  standardStatus: 't.standard_status',
  milestone: 't.milestone',
  carrierStatus: 't.carrier_status',
  estimatedDeliveryAt: 't.estimated_delivery_at',
  // The task's lane's percentiles (LANE_JOIN) from its first scan on.
  predictedDeliveryAt: `(t.transit_started_at + p.median_hours * interval '1 hour')`,
  prediction: 'p',
  // Stored as the text the documents write (json: compact, members in order; migration 0014).
  originAddress: 't.origin_address',
  destinationAddress: 't.destination_address',
  // Stored as the text the documents write, as the addresses (migration 0021).
  proofOfDelivery: 't.proof_of_delivery',
  active: 't.inactive_since IS NULL',
  stoppedAt: 't.stopped_at',
  createdAt: 't.created_at',
  updatedAt: 't.updated_at',
  // The schedule's row (SCHEDULE_JOIN): written by every fetch, where the task's row is not.
  lastCheckedAt: 's.last_fetched_at',
  nextCheckAt: 's.next_refresh_at',
  // The interface's events are kept ready on the row (events-view.ts); the full task's, with their
  // milestones, are read from tracking_events when asked for (WRITE.fullEvents).
  events: 't.events_view',
  latestWebhook: 't.id',
}

/** The task's schedule row as `s`, beside the task row `t` (every task has one: migration 0017). */
const scheduleJoin = (relation: string) => `FROM (SELECT) AS one LEFT JOIN ${relation} s ON s.task_id = t.id`

/**
 * The lane a prediction rests on as `p` (no row: no prediction): for a task past its first scan
 * and not terminal, the narrowest of its lanes with enough deliveries (domain/transit-times.ts),
 * from every user's deliveries or, with predictionSharing = own, from the task's user's only.
 * The lanes are probed narrowest first, one key lookup each, and the first found ends it (an
 * Append runs its parts in order and the LIMIT stops it; no sort).
 */
const laneJoin = (() => {
  const field = (address: string, member: string) => `COALESCE(t.${address}->>'${member}', '')`
  const [oc, os, dc, ds] = [
    field('origin_address', 'country'),
    field('origin_address', 'state'),
    field('destination_address', 'country'),
    field('destination_address', 'state'),
  ]
  const terminal = [...TERMINAL_STATUSES].map((status) => `'${status}'`).join(', ')
  const probe = (basis: Basis, key: [string, string, string, string]) =>
    `SELECT '${basis}' AS basis, l.deliveries, l.p10_hours, l.median_hours, l.p90_hours
             FROM transit_lanes l
            WHERE l.scope_user_id = scope.user_id AND l.carrier_code = t.carrier_code
              AND (l.origin_country, l.origin_state, l.destination_country, l.destination_state) = (${key.join(', ')})
              AND l.deliveries >= ${MIN_LANE_DELIVERIES}`
  return `LEFT JOIN LATERAL (
    SELECT lane.* FROM (SELECT CASE WHEN (SELECT prediction_sharing FROM settings) = 'own' THEN t.user_id ELSE 0 END AS user_id) AS scope,
      LATERAL (${probe('states', [oc, os, dc, ds])}
           UNION ALL
           ${probe('countries', [oc, `'${ANY}'`, dc, `'${ANY}'`])}
           UNION ALL
           ${probe('carrier', [`'${ANY}'`, `'${ANY}'`, `'${ANY}'`, `'${ANY}'`])}) AS lane
     WHERE t.transit_started_at IS NOT NULL AND t.standard_status NOT IN (${terminal})
     LIMIT 1) p ON true`
})()

/** A prediction from its lane `p` and the task's first scan; null without a lane. */
const predictionOf = (p: string) =>
  `(SELECT row_to_json(x) FROM (
      SELECT ${p}.basis AS basis, ${p}.deliveries AS samples,
             ${iso(`(t.transit_started_at + ${p}.p10_hours * interval '1 hour')`)} AS earliest,
             ${iso(`(t.transit_started_at + ${p}.p90_hours * interval '1 hour')`)} AS latest
       WHERE ${p}.deliveries IS NOT NULL) x)`

/** Where each member of latestWebhook comes from, `d` being the webhook_deliveries row. */
const LATEST_WEBHOOK_SOURCES: Record<keyof WebhookSummaryJson, string> = {
  status: 'd.status',
  attemptCount: 'd.attempt_count',
  nextRetryAt: nextRetryAtOf('d'),
  lastAttemptAt: 'd.last_attempt_at',
  responseStatusCode: 'd.response_status_code',
  errorMessage: 'd.error_message',
}

/** How each kind of member is written from its source. */
const WRITE: Record<MemberKind, (source: string) => string> = {
  id: (source) => source,
  count: (source) => source,
  text: (source) => source,
  status: (source) => source,
  milestone: (source) => source,
  webhookStatus: (source) => source,
  boolean: (source) => source,
  time: iso,
  timeOrNull: iso,
  address: (source) => source,
  proofOfDelivery: (source) => source,
  prediction: predictionOf,
  events: (source) => source,
  fullEvents: () => fullEventsOf('t.id'),
  latestWebhook: (taskId) => latestWebhookOf(taskId),
}

function objectOf<M extends Members>(members: M, sources: Record<keyof M, string>, omit: readonly string[] = []): string {
  const written = (Object.keys(members) as (keyof M & string)[]).filter((member) => !omit.includes(member))
  // A member a line: the statements are read in review (src/db/queries/).
  return `SELECT ${written.map((member) => `${WRITE[members[member]!](sources[member])} AS "${member}"`).join(',\n       ')}`
}

/** The task's newest delivery of its own (not an endpoint's), as latestWebhook shows it; null before the first. */
function latestWebhookOf(taskId: string): string {
  return `(SELECT row_to_json(w) FROM (
            ${objectOf(LATEST_WEBHOOK, LATEST_WEBHOOK_SOURCES)}
              FROM webhook_deliveries d
             WHERE d.task_id = ${taskId} AND d.endpoint_id IS NULL
             ORDER BY d.id DESC
             LIMIT 1) w)`
}

export interface DocumentOptions {
  /** Leave out the events (list items without include=events). */
  events?: boolean
  /** Leave out latestWebhook (the webhooks' task). */
  latestWebhook?: boolean
  /**
   * Where the task's schedule row is read (task_schedule): a statement that writes it names the
   * CTE that returns it as written, since the table shows the statement's start.
   */
  schedule?: string
}

// Each kind of document's text, written once: a list page asked for it on every call.
const WRITTEN = new Map<string, string>()

/** An SQL expression: the document of the task row `t` (of tracking_tasks, or a CTE of its columns) as JSON text. */
export function taskDocumentOf(document: 'query' | 'full', options: DocumentOptions = {}): string {
  const key = `${document} ${options.events !== false} ${options.latestWebhook !== false} ${options.schedule ?? ''}`
  let text = WRITTEN.get(key)
  if (text === undefined) {
    const omit = [...(options.events === false ? ['events'] : []), ...(options.latestWebhook === false ? ['latestWebhook'] : [])]
    const members = document === 'query' ? QUERY_TASK : FULL_TASK
    // Only the full task reads the schedule's row: the interface's task does not pay for the probe.
    const from = document === 'full' ? ` ${scheduleJoin(options.schedule ?? 'task_schedule')} ${laneJoin}` : ''
    WRITTEN.set(key, (text = `(SELECT row_to_json(doc)::text FROM (${objectOf(members, TASK_SOURCES, omit)}${from}) doc)`))
  }
  return text
}
