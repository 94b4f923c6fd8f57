import type { Database, Transaction } from '../db/database'
import type { SecretsRepository } from '../db/secrets.repository'
import { lockUserTask } from '../db/task-deletes'
import type { FullTaskDocument, ListedTask, TaskLifecycleRepository } from '../db/task-lifecycle.repository'
import { CARRIER_CODES } from '../carriers/registry'
import { normalizeCarrierCode, unsupportedCarrierMessage } from '../domain/carriers'
import { AppError, invalid, subscriptionNotFound, type FieldError } from '../domain/errors'
import { externalReferenceProblem, parseTrackingNumber } from '../domain/subscription-input'
import { decodeCursor, encodeCursor } from '../domain/list-cursor'
import { filterProblems, LIST_LIMIT, type ListSort, type TaskListFilters, type TaskListQuery } from '../domain/task-list'
import { deleteAndTell } from './task-deletion'

/** The list's parameters as the HTTP layer has checked their types: the filters, their times as given. */
export type ListParameters = { [K in keyof TaskListFilters]: TaskListFilters[K] extends Date | undefined ? string : TaskListFilters[K] } & {
  sort?: ListSort
  limit?: number
  cursor?: string
  include?: 'events'
}

/** A page of full tasks, each its JSON document as the database wrote it. */
export interface TaskPage {
  items: FullTaskDocument[]
  nextCursor: string | null
}

const CURSOR_KEY = 'list-cursor'

/** The task beyond the interface: the full task, the list, stop, refresh now, delete. */
export class TaskService {
  constructor(
    private readonly db: Database,
    private readonly tasks: TaskLifecycleRepository,
    private readonly secrets: SecretsRepository,
    /** Called after a task was made due now (wakes the refresh workers, here or via NOTIFY). */
    private readonly onTaskDue: () => void = () => {},
    /** Called after a delete made tracking.deleted deliveries (wakes the webhook workers). */
    private readonly onDeliveriesDue: () => void = () => {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The full task's JSON document. */
  async get(userId: number, taskId: number): Promise<FullTaskDocument> {
    return (await this.tasks.findFull(userId, taskId)) ?? throwNotFound()
  }

  async list(userId: number, parameters: ListParameters): Promise<TaskPage> {
    const filters = listFilters(parameters)
    const sort = parameters.sort ?? '-createdAt'
    const query: TaskListQuery = {
      userId,
      filters,
      sort,
      limit: parameters.limit ?? LIST_LIMIT.default,
      after: undefined,
      includeEvents: parameters.include === 'events',
    }
    if (parameters.cursor !== undefined) {
      const decoded = decodeCursor(await this.secrets.get(CURSOR_KEY), query, parameters.cursor)
      if (!decoded.ok) throw invalid(decoded.details)
      query.after = decoded.position
    }
    const rows: ListedTask[] = await this.tasks.list(query)
    const page = rows.slice(0, query.limit)
    const last = page.at(-1)
    const nextCursor = rows.length > query.limit && last ? encodeCursor(await this.secrets.get(CURSOR_KEY), query, last.position) : null
    return { items: page.map((row) => row.document), nextCursor }
  }

  /** Stops the task; its full JSON document after. */
  stop(userId: number, taskId: number): Promise<FullTaskDocument> {
    return this.db.transaction((tx) => this.stopIn(tx, userId, taskId))
  }

  /** `stop` in the caller's unit of work (the console's, with its audit entry). */
  async stopIn(tx: Transaction, userId: number, taskId: number): Promise<FullTaskDocument> {
    return (await this.tasks.stop(tx, userId, taskId)) ?? throwNotFound()
  }

  /** Refresh now: the task is due at once (the refresh workers are woken when it commits). */
  refresh(userId: number, taskId: number): Promise<{ taskId: number; nextCheckAt: Date }> {
    return this.db.transaction((tx) => this.refreshIn(tx, userId, taskId))
  }

  /** `refresh` in the caller's unit of work (the console's, with its audit entry). */
  async refreshIn(tx: Transaction, userId: number, taskId: number): Promise<{ taskId: number; nextCheckAt: Date }> {
    const request = await this.tasks.requestRefresh(tx, userId, taskId)
    switch (request.outcome) {
      case 'not_found':
        throw subscriptionNotFound()
      case 'too_soon':
        throw new AppError(
          'rate_limited',
          `this task was refreshed less than a minute ago; retry after ${request.retryAfterSeconds} s`,
          [],
          request.retryAfterSeconds,
        )
      case 'requested':
        tx.afterCommit(this.onTaskDue)
        return { taskId, nextCheckAt: request.nextCheckAt }
    }
  }

  async delete(userId: number, taskId: number): Promise<{ taskId: number; deleted: true }> {
    // One transaction: the task locked, what its deletion tells written, the task deleted.
    return this.db.transaction(async (tx) => {
      const task = await lockUserTask(tx, userId, taskId)
      if (!task) throw subscriptionNotFound()
      if ((await deleteAndTell(tx, [task], this.now())) > 0) tx.afterCommit(this.onDeliveriesDue)
      return { taskId, deleted: true as const }
    })
  }
}

function throwNotFound(): never {
  throw subscriptionNotFound()
}

/** The list's filters, each judged as the domain judges it elsewhere (a number trimmed, a carrier upper-cased). */
function listFilters(p: ListParameters): TaskListFilters {
  const problems: FieldError[] = []
  const filters: TaskListFilters = {
    standardStatus: p.standardStatus,
    milestone: p.milestone,
    externalReferenceNo: p.externalReferenceNo,
    active: p.active,
    createdFrom: date(p.createdFrom),
    createdTo: date(p.createdTo),
    updatedFrom: date(p.updatedFrom),
    updatedTo: date(p.updatedTo),
  }
  if (p.carrierCode !== undefined) {
    const code = normalizeCarrierCode(p.carrierCode)
    if (CARRIER_CODES.includes(code)) filters.carrierCode = code
    else problems.push({ field: 'carrierCode', message: unsupportedCarrierMessage(CARRIER_CODES) })
  }
  // The rules of what can be stored: a value that breaks them matches nothing, and says so.
  const referenceProblem = externalReferenceProblem(p.externalReferenceNo)
  if (referenceProblem) problems.push({ field: 'externalReferenceNo', message: referenceProblem })
  if (p.trackingNumber !== undefined) {
    const number = parseTrackingNumber(p.trackingNumber)
    if (number.ok) filters.trackingNumber = number.value
    else problems.push({ field: 'trackingNumber', message: number.message })
  }
  problems.push(...filterProblems(filters))
  if (problems.length > 0) throw invalid(problems)
  return filters
}

const date = (value: string | undefined) => (value === undefined ? undefined : new Date(value))
