import { fullTaskOf, moveTask, taskTracking, type TaskToMove } from '../db/carrier-changes'
import type { Queryable } from '../db/database'
import { endpointsOf, insertDeliveries } from '../db/outbox-writes'
import type { FullTaskDocument } from '../db/task-lifecycle.repository'
import { CARRIER_CHANGE_LIMIT, type CarrierChangeReason } from '../domain/carrier-change'
import { AppError } from '../domain/errors'
import { deliveriesOfCarrierChange } from '../domain/task-events'
import { parseDocument, type FullTaskJson } from '../domain/task-document'

/** A unique key broken: another task of the user took the pair between the check and the move. */
const UNIQUE_VIOLATION = '23505'

/**
 * Moves a task the transaction holds locked (lockTaskToMove) to another carrier, after writing
 * down what the move tells: `tracking.carrier_changed` to each endpoint of its user that wants it,
 * with the task as the move left it. The user's change and auto-correct both come through here.
 * Refused, before anything is written, onto a pair the user already tracks (`conflict`) and past
 * the task's 5 changes (`limit_reached`). Returns the full task after the move and how many
 * deliveries it made.
 */
export async function moveAndTell(
  tx: Queryable,
  task: TaskToMove,
  carrierCode: string,
  reason: CarrierChangeReason,
  now: Date,
): Promise<{ document: FullTaskDocument; told: number }> {
  const other = await taskTracking(tx, task.userId, task.trackingNumber, carrierCode)
  if (other !== undefined) throw alreadyTracked(task, carrierCode, other)
  if (task.changes >= CARRIER_CHANGE_LIMIT)
    throw new AppError('limit_reached', `task ${task.id} has had its ${CARRIER_CHANGE_LIMIT} carrier changes: subscribe the number with the carrier instead`)
  await moveTask(tx, task, carrierCode, reason).catch((error: unknown) => {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw alreadyTracked(task, carrierCode, undefined)
    throw error
  })
  const document = await fullTaskOf(tx, task)
  const endpoints = (await endpointsOf(tx, [task.userId])).get(task.userId) ?? []
  const { latestWebhook: _latest, ...full } = parseDocument<FullTaskJson>(document)
  const deliveries = deliveriesOfCarrierChange({ ...full, events: full.events ?? [] }, { previousCarrierCode: task.carrierCode, reason }, { endpoints }, now)
  await insertDeliveries(
    tx,
    deliveries.map((delivery) => ({ ...delivery, taskId: task.id, userId: task.userId })),
  )
  return { document, told: deliveries.length }
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
