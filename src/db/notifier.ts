import { AsyncResource } from 'node:async_hooks'
import type { Database } from './database'
import { statementsOf } from './statements'

/** The NOTIFY channels the workers LISTEN on: tasks created or made due now; deliveries made due; pushes stored. */
export const TASKS_DUE = 'tracking_tasks_created'
export const DELIVERIES_DUE = 'deliveries_due'
export const PUSHES_DUE = 'inbound_pushes_due'

/**
 * Sends `NOTIFY channel` at most once per `intervalMs`, outside any request's transaction.
 * A NOTIFY takes a cluster-wide lock at commit; a trigger that notified on every subscribe cost
 * 1.3 ms of a 2.2 ms upsert and serialised concurrent commits. Waking workers does not need one
 * notification per task: one per interval, after the tasks are committed, is as good. Its timer
 * runs in the notifier's own async context, not in that of the request that asked.
 */
export class Notifier {
  private timer: NodeJS.Timeout | undefined
  private lastSent = 0
  private readonly scope = new AsyncResource('tracking.notifier')

  constructor(
    private readonly db: Database,
    private readonly channel: string,
    private readonly intervalMs = 100,
  ) {}

  notify(): void {
    if (this.timer) return
    const wait = Math.max(0, this.lastSent + this.intervalMs - Date.now())
    this.timer = setTimeout(
      this.scope.bind(() => {
        this.timer = undefined
        this.lastSent = Date.now()
        this.db.query(NOTIFY, [this.channel, '']).catch(() => {
          // Workers poll as well: a lost wake-up only delays them.
        })
      }),
      wait,
    )
    this.timer.unref()
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const NOTIFY = sql('notify', 'SELECT pg_notify($1, $2)')
