import type { Action, Role } from './operators'

/**
 * The audit trail's record of one action (docs/console.md, "The audit trail"): who took it, when,
 * what, on what, from where, and how it ended.
 */

/** Who acts: an operator signed in to the console, the holder of the admin token, or the CLI. */
export type Actor =
  { kind: 'operator'; operatorId: number; email: string; role: Role; address: string } | { kind: 'admin_token'; address: string } | { kind: 'cli' }

export const ACTOR_KINDS = ['operator', 'admin_token', 'cli'] as const satisfies readonly Actor['kind'][]

/** ok: done; refused: the service said no (a bad value, too soon, not found); denied: the role may not; failed: an error of ours. */
export const OUTCOMES = ['ok', 'refused', 'denied', 'failed'] as const
export type Outcome = (typeof OUTCOMES)[number]

export const TARGET_KINDS = ['api_user', 'api_token', 'task', 'webhook', 'settings', 'operator', 'console'] as const
export type TargetKind = (typeof TARGET_KINDS)[number]

export interface AuditTarget {
  kind: TargetKind
  id?: string | number
}

/** What an action records beside its actor: never a secret (ids, names, the fields changed). */
export interface AuditEntry {
  action: Action
  target: AuditTarget
  detail?: Record<string, unknown>
}

/** How an actor is named in the trail. */
export function actorName(actor: Actor): string {
  return actor.kind === 'operator' ? actor.email : actor.kind === 'admin_token' ? 'admin token' : 'command line'
}

/** The role an actor acts with: the admin token and the CLI can do everything. */
export const roleOf = (actor: Actor): Role => (actor.kind === 'operator' ? actor.role : 'admin')
