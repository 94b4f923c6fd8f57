import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../../domain/errors'
import { ACTOR_KINDS, type Actor } from '../../domain/audit'
import { formOf, refusalReason, sendPage, type ConsoleOptions } from './console-http'
import { actorOf, form, hide, id, query, show } from './console-pages'
import { fromUtcInput } from './utc-input'
import type { PageContext } from './layout'
import { accountView, operatorsView, operatorView } from './team.view'
import { auditView, type AuditSearch } from './audit.view'
import { isRole } from '../../domain/operators'

const AUDIT_PAGE = 50

/** The console for a team: operators, one's own account, the audit log. */
export async function teamPages(app: FastifyInstance, o: ConsoleOptions): Promise<void> {
  const operatorsPage = async (
    request: FastifyRequest,
    notice?: PageContext['notice'],
    typed?: { email: string; role: '' | 'admin' | 'support' | 'viewer' },
  ) => {
    const operators = await o.operators.list()
    return show(request, 'operators', 'Operators', (ctx) => operatorsView(operators, ctx, typed), notice)
  }
  app.get('/operators', hide, async (request, reply) => sendPage(reply, await operatorsPage(request)))
  app.post('/operators', form('operator.create'), async (request, reply) => {
    const f = formOf(request)
    try {
      const created = await o.operators.create({ email: f.email, role: f.role, password: f.password }, actorOf(request))
      return reply.code(303).header('location', `/console/operators/${created.id}?notice=operator_saved`).send()
    } catch (error) {
      const reason = refusalReason(error)
      const typed = { email: (f.email ?? '').slice(0, 254), role: isRole(f.role) ? f.role : ('' as const) }
      return sendPage(reply, await operatorsPage(request, { kind: 'error', text: `Not created: ${reason}` }, typed), 400)
    }
  })

  const operatorPage = async (request: FastifyRequest, operatorId: number, notice?: PageContext['notice']) => {
    const [operator, sessions] = await Promise.all([o.operators.get(operatorId), o.operators.sessions(operatorId)])
    return show(request, 'operators', `Operator: ${operator.email}`, (ctx) => operatorView(operator, sessions, ctx), notice)
  }
  app.get('/operators/:operatorId', hide, async (request, reply) =>
    sendPage(reply, await operatorPage(request, id((request.params as Record<string, string>).operatorId))),
  )
  app.post('/operators/:operatorId', form('operator.update'), async (request, reply) => {
    const operatorId = id((request.params as Record<string, string>).operatorId)
    const f = formOf(request)
    const change = f.disabled !== undefined ? { disabled: f.disabled === 'true' } : { role: f.role }
    try {
      await o.operators.update(operatorId, change, actorOf(request))
      return reply.code(303).header('location', `/console/operators/${operatorId}?notice=operator_saved`).send()
    } catch (error) {
      return sendPage(reply, await operatorPage(request, operatorId, { kind: 'error', text: `Not saved: ${refusalReason(error)}` }), 400)
    }
  })
  app.post('/operators/:operatorId/password', form('operator.update'), async (request, reply) => {
    const operatorId = id((request.params as Record<string, string>).operatorId)
    try {
      await o.operators.resetPassword(operatorId, formOf(request).password, actorOf(request))
      return reply.code(303).header('location', `/console/operators/${operatorId}?notice=operator_saved`).send()
    } catch (error) {
      return sendPage(reply, await operatorPage(request, operatorId, { kind: 'error', text: `Not set: ${refusalReason(error)}` }), 400)
    }
  })
  app.post('/operators/:operatorId/sessions/revoke', form('operator.revoke_sessions'), async (request, reply) => {
    const operatorId = id((request.params as Record<string, string>).operatorId)
    await o.operators.revokeSessions(operatorId, actorOf(request))
    return reply.code(303).header('location', `/console/operators/${operatorId}?notice=sessions_revoked`).send()
  })

  const accountPage = (request: FastifyRequest, notice?: PageContext['notice']) =>
    show(request, 'account', 'Your account', (ctx) => accountView(ctx, request.consoleSession!.expiresAt), notice)
  app.get('/account', hide, async (request, reply) => sendPage(reply, accountPage(request)))
  app.post('/account/password', form('operator.change_password'), async (request, reply) => {
    const actor: Actor = actorOf(request)
    if (actor.kind !== 'operator') throw new AppError('forbidden', 'The admin token has no password to change.')
    const f = formOf(request)
    try {
      await o.operators.changeOwnPassword(actor, f.currentPassword, f.newPassword, request.consoleSession!.idHash)
      return reply.code(303).header('location', '/console/account?notice=password_changed').send()
    } catch (error) {
      return sendPage(reply, accountPage(request, { kind: 'error', text: `Not changed: ${refusalReason(error)}` }), 400)
    }
  })

  app.get('/audit', hide, async (request, reply) => {
    const q = query(request)
    const text = (name: string, max = 100) => (q[name] ?? '').trim().slice(0, max)
    const search: AuditSearch = {
      who: text('who', 20),
      action: text('action', 40),
      targetKind: text('targetKind', 20),
      targetId: text('targetId'),
      since: text('since', 20),
      until: text('until', 20),
    }
    const who = search.who
    const before = q.before && /^\d{1,15}$/.test(q.before) ? Number(q.before) : undefined
    const [page, operators, settings] = await Promise.all([
      o.audit.list(
        {
          operatorId: /^\d{1,15}$/.test(who) ? Number(who) : undefined,
          actorKind: (ACTOR_KINDS as readonly string[]).includes(who) ? (who as Actor['kind']) : undefined,
          action: search.action || undefined,
          targetKind: search.targetKind || undefined,
          targetId: search.targetId || undefined,
          since: fromUtcInput(search.since),
          until: fromUtcInput(search.until),
          beforeId: before,
        },
        AUDIT_PAGE,
      ),
      o.operators.list(),
      o.settings.get(),
    ])
    return sendPage(
      reply,
      show(request, 'audit', 'Audit log', () => auditView(page.entries, search, operators, page.nextBeforeId, settings.auditRetentionDays)),
    )
  })
}
