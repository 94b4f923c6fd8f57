import type { StandardStatus } from './statuses'
import { taskToJson, type TaskJson } from './task-json'
import type { TrackingTask } from './tracking-task'

/** The body of `tracking.status_changed` (docs/webhooks.md). */
export interface StatusChangedPayload {
  type: 'tracking.status_changed'
  timestamp: string
  data: Omit<TaskJson, 'latestWebhook'> & { previousStandardStatus: StandardStatus; previousCarrierStatus: string }
}

/**
 * The body of a status-change webhook: the task exactly as the query endpoint returns it,
 * without latestWebhook, plus what the status was before.
 */
export function statusChangedPayload(task: TrackingTask, previous: { standardStatus: StandardStatus; carrierStatus: string }, now: Date): StatusChangedPayload {
  const { latestWebhook: _latest, ...data } = taskToJson(task)
  return {
    type: 'tracking.status_changed',
    timestamp: now.toISOString(),
    data: { ...data, previousStandardStatus: previous.standardStatus, previousCarrierStatus: previous.carrierStatus },
  }
}
