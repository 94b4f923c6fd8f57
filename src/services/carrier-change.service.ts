import { fullTaskOf, lockTaskToMove } from '../db/carrier-changes'
import type { Database, Transaction } from '../db/database'
import type { FullTaskDocument } from '../db/task-lifecycle.repository'
import { normalizeCarrierCode } from '../domain/carriers'
import { AppError, describeFieldErrors, subscriptionNotFound } from '../domain/errors'
import type { CarrierCatalogService } from './carrier-catalog.service'
import { moveAndTell } from './carrier-move'

/**
 * A user's carrier change (docs/api.md, "Changing a task's carrier"): PATCH and the console. One
 * transaction: the task locked, the carrier resolved as on subscribe, the task moved and made due
 * now, what the move tells written (carrier-move.ts).
 */
export class CarrierChangeService {
  constructor(
    private readonly db: Database,
    private readonly carriers: CarrierCatalogService,
    /** Called after a task was made due now (wakes the refresh workers). */
    private readonly onTaskDue: () => void = () => {},
    /** Called after the change made deliveries (wakes the webhook workers). */
    private readonly onDeliveriesDue: () => void = () => {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The user's change; the full task after it. */
  change(userId: number, taskId: number, carrierCode: string): Promise<FullTaskDocument> {
    return this.db.transaction((tx) => this.changeIn(tx, userId, taskId, carrierCode))
  }

  /**
   * `change` in the caller's unit of work (the console's, with its audit entry). A code that names
   * the task's own carrier (AUTO picking it too) changes nothing and counts for nothing.
   */
  async changeIn(tx: Transaction, userId: number, taskId: number, requested: string): Promise<FullTaskDocument> {
    const task = await lockTaskToMove(tx, userId, taskId)
    if (!task) throw subscriptionNotFound()
    const choice = this.carriers.resolve(normalizeCarrierCode(requested), task.trackingNumber)
    if (!choice.ok) {
      const details = [{ field: 'carrierCode', message: choice.message }]
      throw new AppError(choice.error, describeFieldErrors(details), details, undefined, choice.candidates ? { candidates: choice.candidates } : undefined)
    }
    if (choice.carrierCode === task.carrierCode) return fullTaskOf(tx, task)
    const { document, told } = await moveAndTell(tx, task, choice.carrierCode, 'user', this.now())
    tx.afterCommit(this.onTaskDue)
    if (told > 0) tx.afterCommit(this.onDeliveriesDue)
    return document
  }
}
