import type { OperatorRepository, OperatorRow, OperatorSessionRow } from '../db/operator.repository'
import type { Actor } from '../domain/audit'
import { AppError, invalid, MUST } from '../domain/errors'
import { isRole, parseOperator, passwordProblem, ROLES, type Role } from '../domain/operators'
import type { AuditTrail } from './audit-trail'
import { hashPassword, passwordMatches } from './passwords'

export type { OperatorRow, OperatorSessionRow }

const notFound = (operatorId: number) => new AppError('not_found', `no operator ${operatorId}`)

/**
 * The console's operators: created by an admin (the admin token, an admin operator, or the CLI),
 * each with a role; their passwords hashed (passwords.ts). Every change is recorded in the audit trail.
 */
export class OperatorService {
  constructor(
    private readonly operators: OperatorRepository,
    private readonly audit: AuditTrail,
  ) {}

  async create(input: { email?: unknown; role?: unknown; password?: unknown }, actor?: Actor): Promise<OperatorRow> {
    const { email, role } = parseOperator(input)
    const passwordHash = await hashPassword(input.password as string)
    const operatorId = await this.audit.record(
      actor,
      { action: 'operator.create', target: { kind: 'operator' }, detail: { email, role } },
      async (tx) => {
        const id = await this.operators.create(tx, email, role, passwordHash)
        if (id === undefined) throw invalid([{ field: 'email', message: 'is already an operator' }])
        return id
      },
      (id) => ({ target: { kind: 'operator', id } }),
    )
    return (await this.operators.find(operatorId))!
  }

  list(): Promise<OperatorRow[]> {
    return this.operators.list()
  }

  async get(operatorId: number): Promise<OperatorRow> {
    const operator = await this.operators.find(operatorId)
    if (!operator) throw notFound(operatorId)
    return operator
  }

  sessions(operatorId: number): Promise<OperatorSessionRow[]> {
    return this.operators.sessions(operatorId)
  }

  /**
   * Changes an operator's role, or disables or enables them. A role applies from their next
   * request (every request reads it); disabling ends their sessions at once.
   */
  async update(operatorId: number, change: { role?: unknown; disabled?: unknown }, actor?: Actor): Promise<OperatorRow> {
    const problems = []
    if (change.role !== undefined && !isRole(change.role)) problems.push({ field: 'role', message: MUST.oneOf(ROLES) })
    if (change.disabled !== undefined && typeof change.disabled !== 'boolean') problems.push({ field: 'disabled', message: MUST.boolean })
    if (problems.length > 0) throw invalid(problems)
    const role = change.role as Role | undefined
    const disabled = change.disabled as boolean | undefined
    if (actor?.kind === 'operator' && actor.operatorId === operatorId && (disabled === true || (role !== undefined && role !== 'admin'))) {
      throw invalid([{ field: role !== undefined ? 'role' : 'disabled', message: 'cannot be changed on your own account (another admin can)' }])
    }
    await this.audit.record(actor, { action: 'operator.update', target: { kind: 'operator', id: operatorId }, detail: { role, disabled } }, async (tx) => {
      if (!(await this.operators.update(tx, operatorId, { role, disabled }))) throw notFound(operatorId)
      if (disabled === true) await this.operators.revokeSessions(tx, operatorId)
    })
    return this.get(operatorId)
  }

  /** An admin sets an operator's password (a forgotten one): their sessions end. */
  async resetPassword(operatorId: number, password: unknown, actor?: Actor): Promise<void> {
    const weak = passwordProblem(password)
    if (weak) throw invalid([weak])
    const passwordHash = await hashPassword(password as string)
    await this.audit.record(actor, { action: 'operator.update', target: { kind: 'operator', id: operatorId }, detail: { password: 'reset' } }, async (tx) => {
      if (!(await this.operators.setPassword(tx, operatorId, passwordHash))) throw notFound(operatorId)
      await this.operators.revokeSessions(tx, operatorId)
    })
  }

  /** An operator changes their own password, giving the current one; their other sessions end. */
  async changeOwnPassword(actor: Actor & { kind: 'operator' }, current: unknown, next: unknown, keepSession: Buffer): Promise<void> {
    const row = await this.operators.credentials(actor.email)
    if (!row || typeof current !== 'string' || !(await passwordMatches(current, row.password_hash))) {
      throw invalid([{ field: 'currentPassword', message: 'is not your current password' }])
    }
    const weak = passwordProblem(next)
    if (weak) throw invalid([{ ...weak, field: 'newPassword' }])
    const passwordHash = await hashPassword(next as string)
    await this.audit.record(actor, { action: 'operator.change_password', target: { kind: 'operator', id: actor.operatorId } }, async (tx) => {
      await this.operators.setPassword(tx, actor.operatorId, passwordHash)
      await this.operators.revokeSessions(tx, actor.operatorId, keepSession)
    })
  }

  /** Ends every session of an operator; how many ended. */
  async revokeSessions(operatorId: number, actor?: Actor): Promise<number> {
    await this.get(operatorId)
    return this.audit.record(
      actor,
      { action: 'operator.revoke_sessions', target: { kind: 'operator', id: operatorId } },
      (tx) => this.operators.revokeSessions(tx, operatorId),
      (ended) => ({ detail: { ended } }),
    )
  }
}
