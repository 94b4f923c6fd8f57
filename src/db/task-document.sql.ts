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
import { isCallback } from './outbox-targets.sql'

/**
 * The task documents as the database writes them: one JSON text per task, with the members,
 * order and formats of domain/task-document.ts, written compactly as JSON.stringify writes
 * (row_to_json). Every task document the service answers or sends is one of these texts: a page of
 * the list, a query's answer, a webhook's task, with nothing for Node to parse or serialise.
 */

/** The task `t`'s public tracking page: PUBLIC_BASE_URL, set on every connection (database.ts), and its token. */
export const PAGE_URL_OF_TASK = `current_setting('app.public_base_url') || '/t/' || t.page_token`

/** An SQL expression written as JavaScript's toISOString writes a Date. */
export const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** A delivery's nextRetryAt: its next attempt's time while it waits to be retried, else null (`d` a deliveries row). */
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
  // Made from the task's lanes at its changes (prediction.sql.ts); the prediction is stored as the
  // text the documents write (migration 0023).
  predictedDeliveryAt: 't.predicted_delivery_at',
  prediction: 't.prediction',
  // Stored as the text the documents write (json: compact, members in order; migration 0014).
  originAddress: 't.origin_address',
  destinationAddress: 't.destination_address',
  // Stored as the text the documents write, as the addresses (migration 0021).
  proofOfDelivery: 't.proof_of_delivery',
  // The page's base URL (PUBLIC_BASE_URL) is each connection's setting (database.ts).
  trackingPageUrl: PAGE_URL_OF_TASK,
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
  // Stored as the text the documents write, NULL for a task never moved or tried (migration 0027).
  carrierChanges: "COALESCE(t.carrier_changes, '[]'::json)",
  carrierCorrection: 't.carrier_correction',
}

/** The task's schedule row as `s`, beside the task row `t` (every task has one: migration 0017). */
const scheduleJoin = (relation: string) => `FROM (SELECT) AS one LEFT JOIN ${relation} s ON s.task_id = t.id`

/** Where each member of latestWebhook comes from, `d` being the deliveries row. */
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
  prediction: (source) => source,
  events: (source) => source,
  fullEvents: () => fullEventsOf('t.id'),
  latestWebhook: (taskId) => latestWebhookOf(taskId),
  carrierChanges: (source) => source,
  carrierCorrection: (source) => source,
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
              FROM deliveries d
             WHERE d.task_id = ${taskId} AND ${isCallback('d')}
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
  /** Write only these members (an export's); every member when absent. */
  only?: readonly string[]
}

// Each kind of document's text, written once: a list page asked for it on every call.
const WRITTEN = new Map<string, string>()

/** An SQL expression: the document of the task row `t` (of tracking_tasks, or a CTE of its columns) as JSON text. */
export function taskDocumentOf(document: 'query' | 'full', options: DocumentOptions = {}): string {
  const key = `${document} ${options.events !== false} ${options.latestWebhook !== false} ${options.schedule ?? ''} ${options.only?.join() ?? ''}`
  let text = WRITTEN.get(key)
  if (text === undefined) {
    const members = document === 'query' ? QUERY_TASK : FULL_TASK
    const omit = [
      ...(options.events === false ? ['events'] : []),
      ...(options.latestWebhook === false ? ['latestWebhook'] : []),
      ...(options.only ? Object.keys(members).filter((member) => !options.only!.includes(member)) : []),
    ]
    // Only the full task reads the schedule's row: the interface's task does not pay for the probe.
    const from = document === 'full' ? ` ${scheduleJoin(options.schedule ?? 'task_schedule')}` : ''
    WRITTEN.set(key, (text = `(SELECT row_to_json(doc)::text FROM (${objectOf(members, TASK_SOURCES, omit)}${from}) doc)`))
  }
  return text
}
