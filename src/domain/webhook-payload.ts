import type { StandardStatus } from './statuses'
import { taskToJson, type TrackingTask } from './tracking-task'

export const STATUS_CHANGED_EVENT = 'tracking.status_changed'

/**
 * The body of a status-change webhook (decisions §7): the task exactly as the query endpoint
 * returns it, without latestWebhook, plus what the status was before.
 */
export function statusChangedPayload(task: TrackingTask, previous: { standardStatus: StandardStatus; carrierStatus: string }, now: Date) {
  const { latestWebhook: _latest, ...data } = taskToJson(task)
  return {
    type: STATUS_CHANGED_EVENT,
    timestamp: now.toISOString(),
    data: { ...data, previousStandardStatus: previous.standardStatus, previousCarrierStatus: previous.carrierStatus },
  }
}
