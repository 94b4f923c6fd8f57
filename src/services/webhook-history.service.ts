import { AppError, subscriptionNotFound } from '../domain/errors'
import type { Database, Transaction } from '../db/database'
import type { WebhookHistoryRepository } from '../db/webhook-history.repository'
import type { WebhookStatus } from '../domain/statuses'
import type { DeliveryRecord } from '../domain/webhook-record'

const HISTORY_LIMIT = 100
const WEBHOOK_ID = /^msg_[0-9a-f]{8,64}$/

/** A task's delivery history and the manual redeliver, for the task's owner only. */
export class WebhookHistoryService {
  constructor(
    private readonly db: Database,
    private readonly deliveries: WebhookHistoryRepository,
    /** Called after a delivery was made due again (wakes the webhook workers). */
    private readonly onRedelivered: () => void = () => {},
  ) {}

  async list(userId: number, taskId: number): Promise<DeliveryRecord[]> {
    const history = await this.deliveries.history(userId, taskId, HISTORY_LIMIT)
    if (!history) throw subscriptionNotFound()
    return history
  }

  redeliver(userId: number, taskId: number, webhookId: string): Promise<{ webhookId: string; status: WebhookStatus }> {
    return this.db.transaction((tx) => this.redeliverIn(tx, userId, taskId, webhookId))
  }

  /** `redeliver` in the caller's unit of work (the console's, with its audit entry). */
  async redeliverIn(tx: Transaction, userId: number, taskId: number, webhookId: string): Promise<{ webhookId: string; status: WebhookStatus }> {
    const status = WEBHOOK_ID.test(webhookId) ? await this.deliveries.redeliver(tx, userId, taskId, webhookId) : undefined
    if (!status) throw new AppError('not_found', 'webhook not found')
    if (status === 'pending') tx.afterCommit(this.onRedelivered)
    return { webhookId, status }
  }
}
