import { AppError } from '../domain/errors'
import { parseTaskQuery } from '../domain/task-query'
import type { DeliveryRecord, WebhookDeliveryRepository } from '../db/webhook-delivery.repository'
import type { WebhookStatus } from '../domain/statuses'

const HISTORY_LIMIT = 100
const WEBHOOK_ID = /^msg_[0-9a-f]{8,64}$/

/** A task's delivery history and the manual redeliver, for the task's owner only. */
export class WebhookHistoryService {
  /** Called after a delivery was made due again (wakes the webhook workers). */
  onRedelivered: () => void = () => {}

  constructor(private readonly deliveries: WebhookDeliveryRepository) {}

  async list(userId: number, taskIdParam: string): Promise<DeliveryRecord[]> {
    const history = await this.deliveries.history(userId, taskId(taskIdParam), HISTORY_LIMIT)
    if (!history) throw new AppError('not_found', 'subscription not found')
    return history
  }

  async redeliver(userId: number, taskIdParam: string, webhookId: string): Promise<{ webhookId: string; status: WebhookStatus }> {
    const id = taskId(taskIdParam)
    const status = WEBHOOK_ID.test(webhookId) ? await this.deliveries.redeliver(userId, id, webhookId) : undefined
    if (!status) throw new AppError('not_found', 'webhook not found')
    if (status === 'pending') this.onRedelivered()
    return { webhookId, status }
  }
}

function taskId(param: string): number {
  const parsed = parseTaskQuery({ taskId: param })
  if (!parsed.ok) throw new AppError('validation_error', 'taskId must be a positive integer', [{ field: 'taskId', message: 'must be a positive integer' }])
  if (parsed.lookup.by !== 'taskId') throw new AppError('not_found', 'subscription not found')
  return parsed.lookup.taskId
}
