import { objectText, RawJson, type JsonMembers } from './json-text'
import type { StandardStatus } from './statuses'
import { taskViewMembers, type TaskJson } from './task-json'
import type { TaskView } from './tracking-task'

/** The body of `tracking.status_changed` (docs/webhooks.md). */
export interface StatusChangedPayload {
  type: 'tracking.status_changed'
  timestamp: string
  data: Omit<TaskJson, 'latestWebhook'> & { previousStandardStatus: StandardStatus; previousCarrierStatus: string }
}

/**
 * The body of a status-change webhook (a StatusChangedPayload), as the text it is stored and sent
 * as: the task exactly as the query endpoint returns it, without latestWebhook, plus what the
 * status was before. The events go in as the text kept on the task, as in the query's answer.
 */
export function statusChangedBody(task: TaskView, previous: { standardStatus: StandardStatus; carrierStatus: string }, now: Date): RawJson {
  const data: JsonMembers = [
    ...taskViewMembers(task).filter(([key]) => key !== 'latestWebhook'),
    ['previousStandardStatus', previous.standardStatus],
    ['previousCarrierStatus', previous.carrierStatus],
  ]
  return new RawJson(
    objectText([
      ['type', 'tracking.status_changed'],
      ['timestamp', now.toISOString()],
      ['data', new RawJson(objectText(data))],
    ]),
  )
}
