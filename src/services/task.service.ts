import type { Database, Transaction } from '../db/database'
import type { SecretsRepository } from '../db/secrets.repository'
import { lockUserTask } from '../db/task-deletes'
import type { FullTaskDocument, ListedTask, TaskLifecycleRepository } from '../db/task-lifecycle.repository'
import { CARRIER_CODES } from '../carriers/registry'
import { AppError, invalid, subscriptionNotFound } from '../domain/errors'
import { decodeCursor, encodeCursor } from '../domain/list-cursor'
import { judgeListFilters, LIST_LIMIT, type ListFilterParameters, type ListSort, type TaskListQuery } from '../domain/task-list'
import type { FullTaskMember } from '../domain/task-document'
import { deleteAndTell } from './task-deletion'

/** The list's parameters as the HTTP layer has checked them: the filters, their times as given. */
export type ListParameters = ListFilterParameters & {
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
    const query = listQuery(userId, parameters, parameters.limit ?? LIST_LIMIT.default, parameters.include === 'events')
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

  /**
   * Every task of the list's filters and sort, page by page (`pageSize` documents each), for an
   * export that streams them: each page read when the one before is written, so that memory holds
   * one page whatever the count.
   */
  async *allPages(userId: number, parameters: ListParameters, pageSize: number, members?: readonly FullTaskMember[]): AsyncGenerator<FullTaskDocument[]> {
    const query = { ...listQuery(userId, parameters, pageSize, false), ...(members ? { members } : {}) }
    // The next page is read while this one is written: the database and the writer each on a core.
    let next: Promise<ListedTask[]> | undefined = this.tasks.list(query)
    try {
      while (next) {
        const rows: ListedTask[] = await next
        const page = rows.slice(0, pageSize)
        next = rows.length > pageSize ? this.tasks.list({ ...query, after: page.at(-1)!.position }) : undefined
        yield page.map((row) => row.document)
      }
    } finally {
      // A reader that stopped early (a download abandoned) leaves a page read for nothing.
      next?.catch(() => {})
    }
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

/** The list's query of the user's tasks from its parameters (their filters judged here), from the first page. */
function listQuery(userId: number, parameters: ListParameters, limit: number, includeEvents: boolean): TaskListQuery {
  const judged = judgeListFilters(parameters, CARRIER_CODES)
  if (!judged.ok) throw invalid(judged.details)
  return { userId, filters: judged.filters, sort: parameters.sort ?? '-createdAt', limit, after: undefined, includeEvents }
}
