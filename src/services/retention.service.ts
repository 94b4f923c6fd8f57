import type { AuditRepository } from '../db/audit.repository'
import type { RecipientRepository } from '../db/recipient.repository'
import type { Database } from '../db/database'
import type { SettingsRepository } from '../db/settings.repository'
import { lockLongInactive } from '../db/task-deletes'
import { deleteAndTell } from './task-deletion'

/** Tasks deleted per statement: a short transaction whatever the backlog. */
export const RETENTION_BATCH = 500

/**
 * Retention: tasks inactive (terminal or stopped) for longer than the retentionDays setting are
 * deleted with their events, deliveries and attempts (telling the endpoints that want
 * `tracking.deleted`), in batches of RETENTION_BATCH, each its own
 * short transaction that skips rows another transaction holds. 0 keeps everything. Audit-log
 * entries older than auditRetentionDays go too, and the recipients of tasks that ended over
 * recipientRetentionDays ago (personal data: docs/notifications.md), in batches of the same size.
 */
export class RetentionService {
  constructor(
    private readonly db: Database,
    private readonly settings: SettingsRepository,
    private readonly audit: AuditRepository,
    private readonly recipients: RecipientRepository,
    /** Called after deletes made tracking.deleted deliveries (wakes the webhook workers). */
    private readonly onDeliveriesDue: () => void = () => {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** One batch; true when it was full (more may be waiting). */
  async runRound(): Promise<boolean> {
    const { retentionDays, auditRetentionDays, recipientRetentionDays } = await this.settings.get()
    const auditFull = (await this.audit.purge(auditRetentionDays, RETENTION_BATCH)) === RETENTION_BATCH
    const recipientsFull = (await this.recipients.purgeEnded(recipientRetentionDays, RETENTION_BATCH)) === RETENTION_BATCH
    if (retentionDays === 0) return auditFull || recipientsFull
    const deleted = await this.db.transaction(async (tx) => {
      const doomed = await lockLongInactive(tx, retentionDays, RETENTION_BATCH)
      if ((await deleteAndTell(tx, doomed, this.now())) > 0) tx.afterCommit(this.onDeliveriesDue)
      return doomed.length
    })
    return deleted === RETENTION_BATCH || auditFull || recipientsFull
  }
}
