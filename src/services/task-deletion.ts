import type { Queryable } from '../db/database'
import { endpointsOf, insertDeliveries, type DeliveryToInsert } from '../db/outbox-writes'
import { deleteTasks, documentsOf, type DoomedTask } from '../db/task-deletes'
import { parseDocument } from '../domain/task-document'
import { deliveriesOfDeletion } from '../domain/task-events'

/**
 * Deletes tasks the transaction holds locked (a user's delete, retention's batch), after writing
 * down what their deletion tells: `tracking.deleted` to each endpoint of their users that wants
 * it, with the task as it was. Returns how many deliveries it made.
 */
export async function deleteAndTell(tx: Queryable, doomed: DoomedTask[], now: Date): Promise<number> {
  if (doomed.length === 0) return 0
  const endpoints = await endpointsOf(
    tx,
    doomed.map((d) => d.userId),
  )
  const told = doomed.filter((d) => endpoints.get(d.userId)?.some((e) => e.eventTypes.includes('tracking.deleted')))
  const documents = await documentsOf(
    tx,
    told.map((d) => d.id),
  )
  const deliveries: DeliveryToInsert[] = []
  for (const { id, userId } of told) {
    const document = documents.get(id)
    if (!document) continue
    for (const delivery of deliveriesOfDeletion(parseDocument(document), { endpoints: endpoints.get(userId)! }, now))
      deliveries.push({ ...delivery, taskId: id, userId })
  }
  await deleteTasks(
    tx,
    doomed.map((d) => d.id),
  )
  // After the delete: its trigger takes every delivery about the task, and these stay.
  await insertDeliveries(tx, deliveries)
  return deliveries.length
}
