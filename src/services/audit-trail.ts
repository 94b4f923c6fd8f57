import type { AuditFilters, AuditRepository, AuditRow } from '../db/audit.repository'
import type { Database, Transaction } from '../db/database'
import type { Actor, AuditEntry, Outcome } from '../domain/audit'
import { AppError } from '../domain/errors'

export type { AuditRow }

/**
 * The audit trail (docs/console.md, "The audit trail"). `record` is the unit of work of a change an
 * actor may make: it opens the transaction, hands it to the change, and writes the entry in it,
 * so that a change is never without its entry nor an entry without its change. A change the
 * service refuses is recorded as refused, in a transaction of its own, and the refusal goes on to
 * the caller.
 */
export class AuditTrail {
  constructor(
    private readonly db: Database,
    private readonly entries: AuditRepository,
  ) {}

  /**
   * Runs `change` in one transaction as `actor`, recording `entry` in it (completed from the
   * change's result by `complete`: the id of what it created, what it changed). Without an actor
   * (an API user's own request, the services' tests), the change alone, in its transaction.
   */
  async record<T>(
    actor: Actor | undefined,
    entry: AuditEntry,
    change: (tx: Transaction) => Promise<T>,
    complete?: (result: T) => Partial<AuditEntry>,
  ): Promise<T> {
    if (!actor) return this.db.transaction(change)
    try {
      return await this.db.transaction(async (tx) => {
        const result = await change(tx)
        const more = complete?.(result)
        await this.entries.add(tx, actor, { ...entry, ...more, detail: { ...entry.detail, ...more?.detail } }, 'ok')
        return result
      })
    } catch (error) {
      const refused = error instanceof AppError && error.code !== 'internal_error' && error.code !== 'unavailable'
      const reason = error instanceof AppError ? error.message : 'internal error'
      // Best effort: when the database itself failed, this fails too, and the caller hears the first error.
      await this.add(actor, { ...entry, detail: { ...entry.detail, reason } }, refused ? 'refused' : 'failed').catch(() => {})
      throw error
    }
  }

  /** Records an action the actor's role may not take (the caller then refuses it). */
  denied(actor: Actor, entry: AuditEntry): Promise<void> {
    return this.add(actor, entry, 'denied')
  }

  /** Records what happened without a change of ours to pair it with (a sign-in refused). */
  note(actor: Actor, entry: AuditEntry, outcome: 'ok' | 'refused'): Promise<void> {
    return this.add(actor, entry, outcome)
  }

  private add(actor: Actor, entry: AuditEntry, outcome: Outcome): Promise<void> {
    return this.db.transaction((tx) => this.entries.add(tx, actor, entry, outcome))
  }

  /** A page of the trail, newest first, and the cursor of the next (the id below which it goes on). */
  async list(filters: AuditFilters, limit: number): Promise<{ entries: AuditRow[]; nextBeforeId: number | null }> {
    const rows = await this.entries.list(filters, limit + 1)
    const entries = rows.slice(0, limit)
    return { entries, nextBeforeId: rows.length > limit ? entries.at(-1)!.id : null }
  }
}
