import { objectText, RawJson, withMembers } from './json-text'
import type { StandardStatus } from './statuses'
import type { JsonText, TaskJson } from './task-document'

/** The interface's task as a webhook carries it: the query's answer without latestWebhook. */
export type WebhookTaskJson = Omit<TaskJson, 'latestWebhook'>

/** The body of `tracking.status_changed` (docs/webhooks.md). */
export interface StatusChangedPayload {
  type: 'tracking.status_changed'
  timestamp: string
  data: WebhookTaskJson & { previousStandardStatus: StandardStatus; previousCarrierStatus: string }
}

/**
 * The body of a status-change webhook (a StatusChangedPayload), as the text it is stored and sent
 * as: the task exactly as the query endpoint returns it, without latestWebhook (the document the
 * database wrote), plus what the status was before.
 */
export function statusChangedBody(task: JsonText<WebhookTaskJson>, previous: { standardStatus: StandardStatus; carrierStatus: string }, now: Date): RawJson {
  const data = withMembers(task, [
    ['previousStandardStatus', previous.standardStatus],
    ['previousCarrierStatus', previous.carrierStatus],
  ])
  return new RawJson(
    objectText([
      ['type', 'tracking.status_changed'],
      ['timestamp', now.toISOString()],
      ['data', new RawJson(data)],
    ]),
  )
}
