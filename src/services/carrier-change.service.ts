import { fullTaskOf, lockTaskToMove, moveTask, taskTracking, type TaskToMove } from '../db/carrier-changes'
import type { Database, Transaction } from '../db/database'
import { endpointsOf, insertDeliveries } from '../db/outbox-writes'
import type { FullTaskDocument } from '../db/task-lifecycle.repository'
import { CARRIER_CHANGE_LIMIT, type CarrierChangeReason } from '../domain/carrier-change'
import { normalizeCarrierCode } from '../domain/carriers'
import { AppError, describeFieldErrors, subscriptionNotFound } from '../domain/errors'
import { deliveriesOfCarrierChange, type EndpointData } from '../domain/task-events'
import { parseDocument, type FullTaskJson } from '../domain/task-document'
import type { CarrierCatalogService } from './carrier-catalog.service'

/** A unique key broken: another task of the user took the pair between the check and the move. */
const UNIQUE_VIOLATION = '23505'

/**
 * Moves a task to another carrier (docs/api.md, "Changing a task's carrier"): for its user (PATCH,
 * the console) and for auto-correct. One transaction: the task locked, the pair and the limit
 * checked, the task moved and made due now, `tracking.carrier_changed` written for the endpoints
 * that want it.
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
    if (choice.carrierCode === task.carrierCode) return this.moved(tx, task, undefined)
    return this.moveIn(tx, task, choice.carrierCode, 'user')
  }

  /** Moves a task the transaction holds locked (lockTaskToMove) to an available carrier of the registry. */
  async moveIn(tx: Transaction, task: TaskToMove, carrierCode: string, reason: CarrierChangeReason): Promise<FullTaskDocument> {
    const other = await taskTracking(tx, task.userId, task.trackingNumber, carrierCode)
    if (other !== undefined) throw alreadyTracked(task, carrierCode, other)
    if (task.changes >= CARRIER_CHANGE_LIMIT)
      throw new AppError('limit_reached', `task ${task.id} has had its ${CARRIER_CHANGE_LIMIT} carrier changes: subscribe the number with the carrier instead`)
    return this.moved(tx, task, { carrierCode, reason })
  }

  private async moved(tx: Transaction, task: TaskToMove, to: { carrierCode: string; reason: CarrierChangeReason } | undefined): Promise<FullTaskDocument> {
    if (!to) return fullTaskOf(tx, task.id)
    await moveTask(tx, task, to.carrierCode, to.reason).catch((error: unknown) => {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw alreadyTracked(task, to.carrierCode, undefined)
      throw error
    })
    const document = await fullTaskOf(tx, task.id)
    const endpoints = (await endpointsOf(tx, [task.userId])).get(task.userId) ?? []
    const { latestWebhook: _latest, ...full } = parseDocument<FullTaskJson>(document)
    const deliveries = deliveriesOfCarrierChange(
      { ...full, events: full.events ?? [] } satisfies EndpointData,
      { previousCarrierCode: task.carrierCode, reason: to.reason },
      { endpoints },
      this.now(),
    )
    await insertDeliveries(
      tx,
      deliveries.map((delivery) => ({ ...delivery, taskId: task.id, userId: task.userId })),
    )
    tx.afterCommit(this.onTaskDue)
    if (deliveries.length > 0) tx.afterCommit(this.onDeliveriesDue)
    return document
  }
}

function alreadyTracked(task: TaskToMove, carrierCode: string, otherTaskId: number | undefined): AppError {
  const which = otherTaskId === undefined ? 'another task of yours' : `task ${otherTaskId}`
  return new AppError(
    'conflict',
    `${which} already tracks ${task.trackingNumber} with ${carrierCode}: change that task, or delete one of them`,
    [],
    undefined,
    otherTaskId === undefined ? undefined : { taskId: otherTaskId },
  )
}
