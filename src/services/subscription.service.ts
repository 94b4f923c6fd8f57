import { AUTO_CARRIER, normalizeCarrierCode, type CarrierCandidate, type CarrierChoice, type CarrierResolver } from '../domain/carriers'
import type { CarrierDetector } from './route-detection'
import type { CarrierCatalogService } from './carrier-catalog.service'
import { AppError, subscriptionNotFound, describeFieldErrors, invalid, type FieldError } from '../domain/errors'
import { SETTINGS } from '../domain/settings'
import type { BatchResultKind, SubscribeResultKind } from '../domain/subscription-outcomes'
import type { StandardStatus } from '../domain/statuses'
import { validateSubscription, type SubscriptionRequest } from '../domain/subscription-input'
import { parseTaskQuery } from '../domain/task-query'
import type { SettingsRepository } from '../db/settings.repository'
import { taskKey, type BatchInsertResult, type InsertOutcome, type TaskDocument, type TaskRepository } from '../db/task.repository'
import type { Database, Queryable } from '../db/database'
import type { Recipient } from '../domain/notifications'

export interface SubscribeResult {
  taskId: number
  carrierCode: string
  trackingNumber: string
  externalReferenceNo: string
  standardStatus: StandardStatus
  result: SubscribeResultKind
  message: string
}

export type BatchItemResult = {
  index: number
  trackingNumber: string
  carrierCode: string
  taskId: number
  result: BatchResultKind
  message: string
  /** With carrier_not_detected: what detection found. */
  candidates?: CarrierCandidate[]
}

/** The schema checks of the subscribe bodies (http/schemas/subscription.schema.ts): each field's first problem. */
export interface SubscriptionChecks {
  subscription(body: unknown): FieldError[]
  /** A batch body's envelope: an object holding an array `items`. */
  batch(body: unknown): FieldError[]
}

/** Sets or removes (null) tasks' recipients in a subscribe's unit of work; the ids of the user's tasks among them. */
export type RecipientWriter = (tx: Queryable, userId: number, items: readonly { taskId: number; recipient: Recipient | null }[]) => Promise<Set<number>>

/** Subscribe (single and batch) and query: the three endpoints of the interface. */
export class SubscriptionService {
  constructor(
    private readonly checks: SubscriptionChecks,
    private readonly db: Database,
    private readonly tasks: TaskRepository,
    private readonly settings: SettingsRepository,
    private readonly carriers: CarrierCatalogService,
    private readonly setRecipient: RecipientWriter,
    /** Called after tasks were created (wakes the refresh workers, here or via NOTIFY). */
    private readonly onTasksCreated: () => void = () => {},
    /** AUTO for a number our formats cannot pick a carrier for: an aggregator's detection, when a route runs here. */
    private readonly detector?: CarrierDetector,
  ) {}

  /**
   * The resolver of these items' carriers: the catalogue's, and for each AUTO item our formats
   * cannot pick a carrier for (none matches, or none certainly), the carrier the detector tells
   * (one call for all of them).
   */
  private async resolverFor(items: readonly unknown[]): Promise<CarrierResolver> {
    const resolve = this.carriers.resolve
    if (!this.detector) return resolve
    // Each AUTO item's choice is made once here; validation reads it back.
    const choices = new Map<string, CarrierChoice>()
    for (const item of items) {
      const { carrierCode, trackingNumber } = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>
      if (typeof carrierCode !== 'string' || normalizeCarrierCode(carrierCode) !== AUTO_CARRIER || typeof trackingNumber !== 'string') continue
      const number = trackingNumber.trim()
      if (number && !choices.has(number)) choices.set(number, resolve(AUTO_CARRIER, number))
    }
    const unmatched = [...choices].filter(([, choice]) => !choice.ok && choice.error === 'carrier_not_detected').map(([number]) => number)
    if (unmatched.length === 0) return resolve
    for (const [number, carrierCode] of await this.detector.detect(unmatched)) choices.set(number, { ok: true, carrierCode })
    return (carrierCode, trackingNumber) => (carrierCode === AUTO_CARRIER && choices.get(trackingNumber)) || resolve(carrierCode, trackingNumber)
  }

  async subscribe(userId: number, body: unknown): Promise<SubscribeResult> {
    const validation = validateSubscription({ body, refused: this.checks.subscription(body) }, await this.resolverFor([body]))
    if (!validation.ok) {
      const { error, details, candidates } = validation
      throw new AppError(error, describeFieldErrors(details), details, undefined, candidates ? { candidates } : undefined)
    }
    const request = validation.value
    const { recipient } = request
    // A subscribe that names a recipient writes the task and its recipient in one transaction; the
    // others share the coalesced upserts.
    const outcome =
      recipient === undefined
        ? await this.tasks.upsert(userId, request)
        : await this.db.transaction(async (tx) => {
            const upserted = await this.tasks.upsertIn(tx, userId, request)
            await this.setRecipient(tx, userId, [{ taskId: upserted.taskId, recipient }])
            return upserted
          })
    if (outcome.created) this.onTasksCreated()
    return {
      taskId: outcome.taskId,
      carrierCode: request.carrierCode,
      trackingNumber: request.trackingNumber,
      externalReferenceNo: request.externalReferenceNo,
      standardStatus: outcome.standardStatus,
      result: outcome.created ? 'created' : 'updated',
      message: outcome.created ? 'subscription created' : 'subscription updated: callbackUrl and externalReferenceNo overwritten',
    }
  }

  /**
   * Each item goes through the single-subscribe rules and fails alone. Existing tasks are
   * `reused` and left untouched; a (carrier, number) repeated inside the batch is `reused` with
   * the taskId of its first occurrence. All valid items are written in one statement.
   */
  async subscribeBatch(userId: number, body: unknown): Promise<BatchItemResult[]> {
    const envelope = this.checks.batch(body)
    if (envelope.length > 0) throw invalid(envelope)
    const { items } = body as { items: unknown[] }
    // No setting allows more than the limit: such a batch is refused before any item is judged.
    if (items.length < 1 || items.length > SETTINGS.batchMaxItems.max) throw tooManyItems(items.length, (await this.settings.get()).batchMaxItems)

    const results: BatchItemResult[] = []
    const firstIndexByKey = new Map<string, number>()
    const toWrite: SubscriptionRequest[] = []
    const resolve = await this.resolverFor(items)
    items.forEach((item, index) => {
      const validation = validateSubscription({ body: item, refused: this.checks.subscription(item) }, resolve)
      if (!validation.ok) {
        const { error, details, carrierCode, trackingNumber, candidates } = validation
        results.push({
          index,
          trackingNumber,
          carrierCode,
          taskId: 0,
          result: error,
          message: describeFieldErrors(details),
          ...(candidates ? { candidates } : {}),
        })
        return
      }
      const { carrierCode, trackingNumber } = validation.value
      const key = taskKey(carrierCode, trackingNumber)
      // Filled in below, once the statement has told created from existing.
      results.push({ index, trackingNumber, carrierCode, taskId: 0, result: 'reused', message: '' })
      if (!firstIndexByKey.has(key)) {
        firstIndexByKey.set(key, index)
        toWrite.push(validation.value)
      }
    })

    // The setting is read by the write itself (one round trip, and a batch is held to the value
    // current when it is written); a batch with nothing to write reads it alone.
    const written = toWrite.length > 0 ? await this.insertMissing(userId, toWrite, items.length) : undefined
    const batchMaxItems = written?.batchMaxItems ?? (await this.settings.get()).batchMaxItems
    if (items.length > batchMaxItems) throw tooManyItems(items.length, batchMaxItems)
    const outcomes = written?.outcomes ?? new Map<string, InsertOutcome>()
    if ([...outcomes.values()].some((o) => o.created)) this.onTasksCreated()
    for (const entry of results) {
      if (entry.result !== 'reused') continue
      const key = taskKey(entry.carrierCode, entry.trackingNumber)
      const outcome = outcomes.get(key)!
      const firstIndex = firstIndexByKey.get(key)!
      entry.taskId = outcome.taskId
      if (firstIndex !== entry.index) {
        entry.message = `same carrierCode and trackingNumber as item ${firstIndex} of this batch; reused its task`
      } else if (outcome.created) {
        entry.result = 'created'
        entry.message = 'subscription created'
      } else {
        entry.message = 'subscription already exists; reused unchanged'
      }
    }
    return results
  }

  /**
   * The batch's writes: its new tasks and, when items name recipients, those of the tasks it
   * created in the same transaction (a reused task keeps its own).
   */
  private insertMissing(userId: number, toWrite: SubscriptionRequest[], batchSize: number): Promise<BatchInsertResult> {
    if (!toWrite.some((r) => r.recipient)) return this.tasks.insertMissing(userId, toWrite, batchSize)
    return this.db.transaction(async (tx) => {
      const written = await this.tasks.insertMissingIn(tx, userId, toWrite, batchSize)
      const recipients = toWrite.flatMap((request) => {
        const outcome = written.outcomes.get(taskKey(request.carrierCode, request.trackingNumber))
        return outcome?.created && request.recipient ? [{ taskId: outcome.taskId, recipient: request.recipient }] : []
      })
      await this.setRecipient(tx, userId, recipients)
      return written
    })
  }

  /** The task as the interface answers it: its JSON document, written by the database. */
  async find(userId: number, query: { taskId?: unknown; trackingNumber?: unknown }): Promise<TaskDocument> {
    const parsed = parseTaskQuery(query)
    if (!parsed.ok) throw invalid(parsed.details)
    const { lookup } = parsed
    const task =
      lookup.by === 'taskId'
        ? await this.tasks.findById(userId, lookup.taskId)
        : lookup.by === 'trackingNumber'
          ? await this.tasks.findNewestByTrackingNumber(userId, lookup.trackingNumber)
          : undefined
    // Another user's task is as absent as a task that never existed.
    if (!task) throw subscriptionNotFound()
    return task
  }
}

function tooManyItems(count: number, batchMaxItems: number): AppError {
  return invalid([{ field: 'items', message: `must hold 1 to ${batchMaxItems} items, got ${count}` }])
}
