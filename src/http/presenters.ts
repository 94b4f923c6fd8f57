import type { TrackingTask } from '../domain/tracking-task'

/** The query endpoint's `data`: the task with every datetime as an ISO 8601 UTC string. */
export function presentTask(task: TrackingTask) {
  return {
    ...task,
    estimatedDeliveryAt: task.estimatedDeliveryAt?.toISOString() ?? null,
    events: task.events.map((e) => ({ ...e, eventTime: e.eventTime.toISOString() })),
    latestWebhook: task.latestWebhook && {
      ...task.latestWebhook,
      nextRetryAt: task.latestWebhook.nextRetryAt?.toISOString() ?? null,
      lastAttemptAt: task.latestWebhook.lastAttemptAt?.toISOString() ?? null,
    },
  }
}

export function success<T>(data: T) {
  return { code: 200, data, msg: 'success' }
}
