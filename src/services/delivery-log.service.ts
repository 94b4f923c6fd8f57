import type { Database, Transaction } from '../db/database'
import type { DeliveryLogEntry, DeliveryLogFilters, DeliveryLogRepository } from '../db/delivery-log.repository'
import type { SecretsRepository } from '../db/secrets.repository'
import { invalid, type FieldError } from '../domain/errors'
import type { EventType } from '../domain/event-types'
import { decodeCursor, encodeCursor, type Listing } from '../domain/list-cursor'
import type { WebhookStatus } from '../domain/statuses'

/** The log's page size, and the most one bulk replay queues. */
export const LOG_LIMIT = { min: 1, max: 100, default: 20 } as const
export const REPLAY_MAX = 10_000

/** The log's parameters as the HTTP layer has checked their types. */
export interface LogParameters {
  status?: WebhookStatus
  eventType?: EventType
  endpointId?: number
  taskId?: number
  createdFrom?: string
  createdTo?: string
  limit?: number
  cursor?: string
}

/** What a bulk replay queues again: the deliveries failed for good in a window, of one endpoint or all. */
export interface ReplayBody {
  status: 'failed'
  createdFrom: string
  createdTo: string
  endpointId?: number
}

const CURSOR_KEY = 'list-cursor'
const SORT = '-createdAt'

/** The account-wide delivery log and the bulk replay (docs/webhooks.md, "The log"). */
export class DeliveryLogService {
  constructor(
    private readonly db: Database,
    private readonly log: DeliveryLogRepository,
    private readonly secrets: SecretsRepository,
    /** Called after deliveries were made due again (wakes the webhook workers). */
    private readonly onQueued: () => void = () => {},
  ) {}

  async list(userId: number, p: LogParameters): Promise<{ items: DeliveryLogEntry[]; nextCursor: string | null }> {
    const filters: DeliveryLogFilters = {
      status: p.status,
      eventType: p.eventType,
      endpointId: p.endpointId,
      taskId: p.taskId,
      createdFrom: date(p.createdFrom),
      createdTo: date(p.createdTo),
    }
    if (filters.createdFrom && filters.createdTo && filters.createdFrom >= filters.createdTo)
      throw invalid([{ field: 'createdFrom', message: 'must be before createdTo' }])
    const listing: Listing = { userId, filters, sort: SORT }
    const limit = p.limit ?? LOG_LIMIT.default
    let after
    if (p.cursor !== undefined) {
      const decoded = decodeCursor(await this.secrets.get(CURSOR_KEY), listing, p.cursor)
      if (!decoded.ok) throw invalid(decoded.details)
      after = decoded.position
    }
    const rows = await this.log.list(userId, filters, limit, after)
    const page = rows.slice(0, limit)
    const last = page.at(-1)
    const nextCursor = rows.length > limit && last ? encodeCursor(await this.secrets.get(CURSOR_KEY), listing, last.position) : null
    return { items: page.map((r) => r.entry), nextCursor }
  }

  /** Queues the failed deliveries of a window again, at most REPLAY_MAX a call (queued = REPLAY_MAX: call again for more). */
  replay(userId: number, body: ReplayBody): Promise<{ queued: number }> {
    return this.db.transaction((tx) => this.replayIn(tx, userId, body))
  }

  /** `replay` in the caller's unit of work (the console's bulk replay, user after user, with its audit entry). */
  async replayIn(tx: Transaction, userId: number, body: ReplayBody): Promise<{ queued: number }> {
    const createdFrom = new Date(body.createdFrom)
    const createdTo = new Date(body.createdTo)
    const problems: FieldError[] = []
    if (createdFrom >= createdTo) problems.push({ field: 'createdFrom', message: 'must be before createdTo' })
    if (problems.length > 0) throw invalid(problems)
    const queued = await this.log.replayFailed(tx, userId, { createdFrom, createdTo, endpointId: body.endpointId }, REPLAY_MAX)
    if (queued > 0) tx.afterCommit(this.onQueued)
    return { queued }
  }
}

const date = (value: string | undefined) => (value === undefined ? undefined : new Date(value))
