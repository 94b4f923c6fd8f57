import type { ConsoleRepository, ConsoleTaskRow, FailingDeliveryRow, HourRow, TaskOwner } from '../db/console.repository'
import type { CircuitView } from '../domain/circuit-breaker'
import type { Actor } from '../domain/audit'
import { AppError, invalid } from '../domain/errors'
import type { AuditTrail } from './audit-trail'
import type { DeliveryLogService } from './delivery-log.service'
import { parseDocument, type FullTaskJson } from '../domain/task-document'
import type { CarrierCatalogService, CarrierInfo, CarrierMode, CarrierPacing } from './carrier-catalog.service'
import type { CarrierChangeService } from './carrier-change.service'
import type { TaskService } from './task.service'
import type { HostView } from './outbox.service'
import type { WebhookHistoryService } from './webhook-history.service'

/** How long the overview's counts are kept by default: one pass over the tasks per this at most. */
export const OVERVIEW_TTL_MS = 30_000

export interface Overview {
  byStatus: Record<string, number>
  byMilestone: Record<string, number>
  byCarrier: Record<string, number>
  lastDay: HourRow[]
  backlog: { carrierCode: string; due: number; oldestSeconds: number | null }[]
  /** Of the last 24 h's deliveries that were attempted (succeeded, retrying, failed), the share that succeeded; null when none. */
  successRate: number | null
  takenAt: Date
}

export interface ConsoleCarrier extends CarrierInfo {
  mode: CarrierMode
  /** In this process; undefined where it does not refresh (ROLE=api). */
  circuit: CircuitView | undefined
}

/**
 * What the operator console shows across users, and its actions, which go through the services
 * the API uses (the same rules: a task's actions are its owner's).
 */
export class ConsoleService {
  private overview: { value: Overview; until: number } | undefined

  constructor(
    private readonly console: ConsoleRepository,
    private readonly tasks: TaskService,
    private readonly changes: CarrierChangeService,
    private readonly webhooks: WebhookHistoryService,
    private readonly carriers: CarrierCatalogService,
    private readonly deliveryLog: DeliveryLogService,
    private readonly audit: AuditTrail,
    private readonly carrierState: {
      circuits: () => Record<string, CircuitView>
      webhookHosts: () => HostView[]
    },
    private readonly overviewTtlMs: number = OVERVIEW_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async getOverview(): Promise<Overview> {
    if (this.overview && this.overview.until > this.now()) return this.overview.value
    const [counts, lastDay, backlog] = await Promise.all([
      this.console.taskCounts(),
      this.console.lastDay(),
      this.console.refreshBacklog(this.carriers.list().map((c) => c.carrierCode)),
    ])
    // Each grouping set's rows have its own column set and the others NULL (the columns are NOT NULL).
    const group = (key: 'standard_status' | 'milestone' | 'carrier_code') =>
      Object.fromEntries(counts.filter((r) => r[key] !== null).map((r) => [r[key]!, r.tasks]))
    const settled = lastDay.reduce((sum, h) => sum + h.succeeded + h.retrying + h.failed, 0)
    const value: Overview = {
      byStatus: group('standard_status'),
      byMilestone: group('milestone'),
      byCarrier: group('carrier_code'),
      lastDay,
      backlog: backlog.map((b) => ({ carrierCode: b.carrier_code, due: b.due, oldestSeconds: b.oldest_seconds })),
      successRate: settled === 0 ? null : lastDay.reduce((sum, h) => sum + h.succeeded, 0) / settled,
      takenAt: new Date(this.now()),
    }
    this.overview = { value, until: this.now() + this.overviewTtlMs }
    return value
  }

  searchTasks(
    filters: { search?: string; standardStatus?: string; milestone?: string; carrierCode?: string; userId?: number; beforeId?: number },
    limit = 50,
  ): Promise<ConsoleTaskRow[]> {
    return this.console.searchTasks({ ...filters, limit })
  }

  /** A task with its owner, its full document and its deliveries with every attempt. */
  async task(taskId: number) {
    const owner = await this.ownerOf(taskId)
    const [document, deliveries] = await Promise.all([this.tasks.get(owner.id, taskId), this.webhooks.list(owner.id, taskId)])
    return { owner, task: parseDocument(document), deliveries }
  }

  /** A user's newest tasks, as values. */
  async userTasks(userId: number, limit = 10): Promise<FullTaskJson[]> {
    return (await this.tasks.list(userId, { limit })).items.map((document) => parseDocument(document))
  }

  async refreshTask(taskId: number, actor: Actor) {
    return this.audit.record(actor, { action: 'task.refresh', target: { kind: 'task', id: taskId } }, async (tx) =>
      this.tasks.refreshIn(tx, (await this.ownerOf(taskId)).id, taskId),
    )
  }

  async stopTask(taskId: number, actor: Actor) {
    return this.audit.record(actor, { action: 'task.stop', target: { kind: 'task', id: taskId } }, async (tx) =>
      this.tasks.stopIn(tx, (await this.ownerOf(taskId)).id, taskId),
    )
  }

  async changeCarrier(taskId: number, carrierCode: string, actor: Actor) {
    return this.audit.record(
      actor,
      { action: 'task.change_carrier', target: { kind: 'task', id: taskId }, detail: { carrierCode: carrierCode.slice(0, 40) } },
      async (tx) => this.changes.changeIn(tx, (await this.ownerOf(taskId)).id, taskId, carrierCode),
    )
  }

  async redeliver(taskId: number, webhookId: string, actor: Actor) {
    return this.audit.record(actor, { action: 'webhook.redeliver', target: { kind: 'webhook', id: webhookId.slice(0, 100) }, detail: { taskId } }, async (tx) =>
      this.webhooks.redeliverIn(tx, (await this.ownerOf(taskId)).id, taskId, webhookId),
    )
  }

  /**
   * Queues again the deliveries that failed for good in a window, of one user, one endpoint (its
   * user's) or every user, through each user's bulk replay (its limit per call in all).
   */
  async replay(filter: { createdFrom: string; createdTo: string; userId?: number; endpointId?: number }, actor: Actor): Promise<{ queued: number }> {
    const { createdFrom, createdTo, endpointId } = filter
    return this.audit.record(
      actor,
      { action: 'webhook.replay', target: filter.userId ? { kind: 'api_user', id: filter.userId } : { kind: 'webhook' }, detail: { ...filter } },
      async (tx) => {
        const owner = endpointId === undefined ? undefined : await this.console.endpointOwner(tx, endpointId)
        if (endpointId !== undefined && (owner === undefined || (filter.userId !== undefined && owner !== filter.userId))) {
          throw invalid([{ field: 'endpointId', message: filter.userId === undefined ? 'is not an endpoint' : "is not this user's endpoint" }])
        }
        const users =
          owner !== undefined
            ? [owner]
            : filter.userId !== undefined
              ? [filter.userId]
              : await this.console.usersWithFailed(tx, new Date(createdFrom), new Date(createdTo))
        let queued = 0
        for (const userId of users) queued += (await this.deliveryLog.replayIn(tx, userId, { status: 'failed', createdFrom, createdTo, endpointId })).queued
        return { queued }
      },
      ({ queued }) => ({ detail: { queued } }),
    )
  }

  failingDeliveries(limit = 100): Promise<FailingDeliveryRow[]> {
    return this.console.failingDeliveries(limit)
  }

  /** The receiving hosts' adaptive limits in this process; empty where it sends no webhooks (ROLE=api). */
  webhookHosts(): HostView[] {
    return this.carrierState.webhookHosts()
  }

  listCarriers(): ConsoleCarrier[] {
    const circuits = this.carrierState.circuits()
    return this.carriers.list().map((c) => ({
      ...c,
      mode: this.carriers.mode(c.carrierCode),
      circuit: circuits[c.carrierCode],
    }))
  }

  /** The carriers with their active tasks and how often those are fetched (the carriers page). */
  async pacedCarriers(): Promise<(ConsoleCarrier & CarrierPacing)[]> {
    const circuits = this.carrierState.circuits()
    return (await this.carriers.listPaced()).map((c) => ({ ...c, mode: this.carriers.mode(c.carrierCode), circuit: circuits[c.carrierCode] }))
  }

  private async ownerOf(taskId: number): Promise<TaskOwner> {
    const owner = await this.console.ownerOf(taskId)
    if (owner === undefined) throw new AppError('not_found', `no task ${taskId}`)
    return owner
  }
}
