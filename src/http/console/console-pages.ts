import { SETTING_SPECS } from '../../domain/settings'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError, type ErrorCode } from '../../domain/errors'
import type { TrackingPageBrand } from '../../domain/tracking-page'
import { STANDARD_STATUSES } from '../../domain/statuses'
import { MILESTONE_NAMES } from '../../domain/milestones'
import type { FastifyReply } from 'fastify'
import { formOf, refusalReason, sendPage, type ConsoleOptions } from './console-http'
import { notificationsForm, settingsOfForm, taskMessagesView } from './notifications.view'
import type { NotificationSettings } from '../../domain/notifications'
import { cookieOf } from './console-session'
import { overviewView } from './overview.view'
import { carriersView, deliveriesView, settingsView } from './operations.view'
import { defaultReplayForm, replayFilterOf, type ReplayForm } from './replay-form'
import { roleOf } from '../../domain/audit'
import type { Action } from '../../domain/operators'
import { transitView } from './transit.view'
import { csvSection } from './csv.view'
import { html, type Html } from '../../domain/html'
import { brandForm, brandOfForm } from './brand.view'
import { page, type PageContext, type Section } from './layout'
import { taskView, tasksView, type TaskSearch } from './tasks.view'
import { userView, usersView, type ShownSecrets } from './users.view'
import type { ShownOnce } from '../../services/console-session.service'

/** Notices a redirect may name (`?notice=`): fixed texts, never data. */
const NOTICES = {
  refreshed: { kind: 'ok', text: 'The carrier will be asked within seconds.' },
  refresh_too_soon: { kind: 'error', text: 'Not refreshed: this task was refreshed less than a minute ago. Try again in a minute.' },
  stopped: { kind: 'ok', text: 'Tracking stopped. A refresh starts it again.' },
  redelivered: { kind: 'ok', text: 'The webhook is queued again: a new cycle of the retry schedule, the same webhook-id.' },
  revoked: { kind: 'ok', text: 'The token is revoked: requests with it are refused within seconds.' },
  saved: { kind: 'ok', text: 'Settings saved.' },
  password_changed: { kind: 'ok', text: 'Password changed. Your other sessions have ended.' },
  operator_saved: { kind: 'ok', text: 'Operator saved: it applies from their next request.' },
  sessions_revoked: { kind: 'ok', text: "The operator's sessions have ended: they must sign in again." },
  carrier_changed: { kind: 'ok', text: 'Moved: the task starts again as pending, and its new carrier is asked within seconds.' },
  carrier_conflict: { kind: 'error', text: 'Not moved: this API user already tracks the number with that carrier (find that task by its tracking number).' },
  carrier_limit: { kind: 'error', text: 'Not moved: the task has had its 5 carrier changes. Subscribe the number with the carrier instead.' },
  carrier_not_detected: { kind: 'error', text: 'Not moved: AUTO could not pick one carrier for this number. Choose the carrier.' },
  carrier_unsupported: { kind: 'error', text: 'Not moved: that carrier is not available on this service.' },
  page_saved: { kind: 'ok', text: "The tracking page's branding is saved: every page of this user's tasks shows it now." },
  notifications_saved: { kind: 'ok', text: "The notification settings are saved: the next milestones of this user's tasks follow them." },
} as const satisfies Record<string, NonNullable<PageContext['notice']>>

/** The notice of each refusal of a carrier change. */
const CARRIER_REFUSALS: Partial<Record<ErrorCode, keyof typeof NOTICES>> = {
  conflict: 'carrier_conflict',
  limit_reached: 'carrier_limit',
  carrier_not_detected: 'carrier_not_detected',
  unsupported_carrier: 'carrier_unsupported',
}

const PAGE_SIZE = 50

function context(request: FastifyRequest, notice?: PageContext['notice']): PageContext {
  const key = (request.query as Record<string, string> | undefined)?.notice
  const fromRedirect = key && Object.hasOwn(NOTICES, key) ? NOTICES[key as keyof typeof NOTICES] : undefined
  const { csrfToken, actor } = request.consoleSession!
  return { csrfToken, actor, role: roleOf(actor), notice: notice ?? fromRedirect }
}

/** Who takes a form's action: the signed-in operator (or the admin token), from this request's address. */
export const actorOf = (request: FastifyRequest) => request.consoleSession!.actor

/** A form's route: hidden from the API's description, and naming the action its role must allow. */
export const form = (action: Action) => ({ schema: { hide: true }, config: { action } })

/** A page of the console: its context (CSRF token, notice) made once, for the layout and the content. */
export function show(request: FastifyRequest, section: Section, title: string, content: (ctx: PageContext) => Html, notice?: PageContext['notice']): Html {
  const ctx = context(request, notice)
  return page(section, title, ctx, content(ctx))
}

/** A path id: digits only, else the page does not exist. */
export function id(value: unknown): number {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,14}$/.test(value)) throw new AppError('not_found', 'There is no such page in the console.')
  return Number(value)
}

export const query = (request: FastifyRequest) => (request.query ?? {}) as Record<string, string | undefined>
export const hide = { schema: { hide: true } }

/** A form's answer: see `path`, which shows what the form made once (post/redirect/get: a reload repeats nothing). */
export async function redirectShowingOnce(
  o: ConsoleOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  shown: ShownOnce,
): Promise<FastifyReply> {
  await o.sessions.keepOnce(cookieOf(request), path, shown)
  return reply.code(303).header('location', path).send()
}

/** What the form before this view of `path` left to show once, as the page's secrets and notice. */
async function takenOnce(o: ConsoleOptions, request: FastifyRequest, path: string): Promise<{ secrets: ShownSecrets; notice?: PageContext['notice'] }> {
  const shown = await o.sessions.takeOnce(cookieOf(request), path)
  if (!shown) return { secrets: {} }
  return { secrets: { token: shown.token, webhookSecret: shown.webhookSecret }, notice: shown.notice ? { kind: 'ok', text: shown.notice } : undefined }
}

export async function consolePages(app: FastifyInstance, o: ConsoleOptions): Promise<void> {
  app.get('/', hide, async (request, reply) => {
    const overview = await o.console.getOverview()
    return sendPage(
      reply,
      show(request, 'overview', 'Overview', () => overviewView(overview, o.console.listCarriers())),
    )
  })

  // API users.
  const usersPage = async (request: FastifyRequest, secrets: ShownSecrets = {}, notice?: PageContext['notice']) => {
    const q = query(request)
    const search = (q.q ?? '').trim().slice(0, 100)
    const after = q.after && /^\d{1,15}$/.test(q.after) ? Number(q.after) : undefined
    const users = await o.users.search({ search, afterId: after }, PAGE_SIZE + 1)
    const shown = users.slice(0, PAGE_SIZE)
    const next = users.length > PAGE_SIZE ? shown.at(-1)!.id : undefined
    return show(request, 'users', 'API users', (ctx) => usersView(shown, { q: search, nextAfterId: next }, ctx, secrets), notice)
  }
  app.get('/users', hide, async (request, reply) => {
    const { secrets, notice } = await takenOnce(o, request, '/console/users')
    return sendPage(reply, await usersPage(request, secrets, notice))
  })
  app.post('/users', form('api_user.create'), async (request, reply) => {
    try {
      const created = await o.users.create(formOf(request).name, actorOf(request))
      return await redirectShowingOnce(o, request, reply, '/console/users', {
        token: created.token,
        webhookSecret: created.webhookSecret,
        notice: `API user "${created.name}" created (id ${created.userId}).`,
      })
    } catch (error) {
      return sendPage(reply, await usersPage(request, {}, { kind: 'error', text: `Not created: ${refusalReason(error)}` }), 400)
    }
  })
  const userPage = async (
    request: FastifyRequest,
    userId: number,
    secrets: ShownSecrets = {},
    notice?: PageContext['notice'],
    submitted?: TrackingPageBrand,
    submittedSettings?: NotificationSettings,
  ) => {
    const [user, tokens, endpoints, tasks, brand, notifications] = await Promise.all([
      o.users.get(userId),
      o.users.listTokens(userId),
      o.endpoints.list(userId),
      o.console.userTasks(userId),
      o.pages.brand(userId),
      o.notifications.ofUser(userId),
    ])
    return show(
      request,
      'users',
      `API user: ${user.name}`,
      (ctx) =>
        html`${userView(user, tokens, endpoints, tasks, ctx, secrets)}${csvSection(userId, ctx)}${brandForm(userId, submitted ?? brand, ctx)}${notificationsForm(
          userId,
          submittedSettings ?? notifications.settings,
          notifications.suppressedAddresses,
          ctx,
        )}`,
      notice,
    )
  }
  app.get('/users/:userId', hide, async (request, reply) => {
    const userId = id((request.params as Record<string, string>).userId)
    const { secrets, notice } = await takenOnce(o, request, `/console/users/${userId}`)
    return sendPage(reply, await userPage(request, userId, secrets, notice))
  })
  app.post('/users/:userId/tokens', form('api_token.issue'), async (request, reply) => {
    const userId = id((request.params as Record<string, string>).userId)
    const { token, tokenId } = await o.users.issueToken(userId, actorOf(request))
    return redirectShowingOnce(o, request, reply, `/console/users/${userId}`, { token, notice: `Token ${tokenId} issued.` })
  })
  app.post('/users/:userId/tokens/:tokenId/revoke', form('api_token.revoke'), async (request, reply) => {
    const params = request.params as Record<string, string>
    await o.users.revokeToken(id(params.userId), id(params.tokenId), actorOf(request))
    return reply
      .code(303)
      .header('location', `/console/users/${id(params.userId)}?notice=revoked`)
      .send()
  })
  app.post('/users/:userId/webhook-secret/rotate', form('webhook_secret.rotate'), async (request, reply) => {
    const userId = id((request.params as Record<string, string>).userId)
    const { webhookSecret } = await o.users.rotateWebhookSecret(userId, actorOf(request))
    return redirectShowingOnce(o, request, reply, `/console/users/${userId}`, {
      webhookSecret,
      notice: 'Webhook secret rotated; the previous one keeps signing for 24 hours.',
    })
  })

  app.post('/users/:userId/tracking-page', form('tracking_page.save'), async (request, reply) => {
    const userId = id((request.params as Record<string, string>).userId)
    await o.users.get(userId)
    const submitted = brandOfForm(formOf(request))
    try {
      await o.pages.saveBrand(userId, submitted, actorOf(request))
      return reply.code(303).header('location', `/console/users/${userId}?notice=page_saved#tracking-page`).send()
    } catch (error) {
      // The form again as it was sent, with what is wrong.
      const reason = refusalReason(error)
      return sendPage(reply, await userPage(request, userId, {}, { kind: 'error', text: `Tracking page not saved: ${reason}` }, submitted), 400)
    }
  })

  app.post('/users/:userId/notifications', form('notifications.save'), async (request, reply) => {
    const userId = id((request.params as Record<string, string>).userId)
    await o.users.get(userId)
    const submitted = settingsOfForm(formOf(request))
    try {
      await o.notifications.saveSettings(userId, submitted, actorOf(request))
      return reply.code(303).header('location', `/console/users/${userId}?notice=notifications_saved#notifications`).send()
    } catch (error) {
      const reason = refusalReason(error)
      return sendPage(reply, await userPage(request, userId, {}, { kind: 'error', text: `Notifications not saved: ${reason}` }, undefined, submitted), 400)
    }
  })
  // Tasks across users.
  app.get('/tasks', hide, async (request, reply) => {
    const q = query(request)
    const search: TaskSearch = {
      q: (q.q ?? '').trim().slice(0, 128),
      status: q.status ?? '',
      milestone: (MILESTONE_NAMES as readonly string[]).includes(q.milestone ?? '') ? q.milestone! : '',
      carrier: q.carrier ?? '',
      userId: q.userId && /^\d{1,15}$/.test(q.userId) ? q.userId : '',
    }
    const status = (STANDARD_STATUSES as readonly string[]).includes(search.status) ? search.status : undefined
    const carriers = o.console.listCarriers().map((c) => c.carrierCode)
    const carrier = carriers.includes(search.carrier) ? search.carrier : undefined
    const before = q.before && /^\d{1,15}$/.test(q.before) ? Number(q.before) : undefined
    const rows = await o.console.searchTasks(
      {
        search: search.q || undefined,
        standardStatus: status,
        milestone: search.milestone || undefined,
        carrierCode: carrier,
        userId: search.userId ? Number(search.userId) : undefined,
        beforeId: before,
      },
      PAGE_SIZE + 1,
    )
    const shown = rows.slice(0, PAGE_SIZE)
    return sendPage(
      reply,
      show(request, 'tasks', 'Tasks', () =>
        tasksView(shown, search, {
          statuses: STANDARD_STATUSES,
          milestones: MILESTONE_NAMES,
          carriers,
          nextBeforeId: rows.length > PAGE_SIZE ? shown.at(-1)!.id : undefined,
        }),
      ),
    )
  })
  app.get('/tasks/:taskId', hide, async (request, reply) => {
    const taskId = id((request.params as Record<string, string>).taskId)
    const { owner, task, deliveries } = await o.console.task(taskId)
    const { notifications } = await o.notifications.ofTask(owner.id, taskId)
    return sendPage(
      reply,
      show(
        request,
        'tasks',
        `Task ${taskId}: ${String(task.trackingNumber)}`,
        (ctx) =>
          html`${taskView(
            owner,
            task,
            deliveries,
            o.console
              .listCarriers()
              .filter((c) => c.available)
              .map((c) => c.carrierCode),
            ctx,
          )}${taskMessagesView(notifications)}`,
      ),
    )
  })
  app.post('/tasks/:taskId/refresh', form('task.refresh'), async (request, reply) => {
    const taskId = id((request.params as Record<string, string>).taskId)
    // Refreshed less than a minute ago: back to the task, saying so, rather than to an error page.
    const notice = await o.console.refreshTask(taskId, actorOf(request)).then(
      () => 'refreshed',
      (error: unknown) => {
        if (error instanceof AppError && error.code === 'rate_limited') return 'refresh_too_soon'
        throw error
      },
    )
    return reply.code(303).header('location', `/console/tasks/${taskId}?notice=${notice}`).send()
  })
  app.post('/tasks/:taskId/stop', form('task.stop'), async (request, reply) => {
    const taskId = id((request.params as Record<string, string>).taskId)
    await o.console.stopTask(taskId, actorOf(request))
    return reply.code(303).header('location', `/console/tasks/${taskId}?notice=stopped`).send()
  })
  app.post('/tasks/:taskId/carrier', form('task.change_carrier'), async (request, reply) => {
    const taskId = id((request.params as Record<string, string>).taskId)
    // A refusal of the service comes back to the task, saying why, rather than to an error page.
    const notice = await o.console.changeCarrier(taskId, (formOf(request).carrierCode ?? '').slice(0, 64), actorOf(request)).then(
      () => 'carrier_changed',
      (error: unknown) => {
        if (!(error instanceof AppError)) throw error
        const refused = CARRIER_REFUSALS[error.code]
        if (!refused) throw error
        return refused
      },
    )
    return reply.code(303).header('location', `/console/tasks/${taskId}?notice=${notice}`).send()
  })
  app.post('/tasks/:taskId/webhooks/:webhookId/redeliver', form('webhook.redeliver'), async (request, reply) => {
    const params = request.params as Record<string, string>
    const taskId = id(params.taskId)
    await o.console.redeliver(taskId, params.webhookId ?? '', actorOf(request))
    const back = formOf(request).back === 'deliveries' ? '/console/deliveries' : `/console/tasks/${taskId}`
    return reply.code(303).header('location', `${back}?notice=redelivered`).send()
  })

  // Operations.
  const deliveriesPage = async (request: FastifyRequest, replay: ReplayForm, notice?: PageContext['notice']) => {
    const failing = await o.console.failingDeliveries()
    return show(request, 'deliveries', 'Failing deliveries', (ctx) => deliveriesView(failing, o.console.webhookHosts(), ctx, replay), notice)
  }
  app.get('/deliveries', hide, async (request, reply) => {
    const { notice } = await takenOnce(o, request, '/console/deliveries')
    return sendPage(reply, await deliveriesPage(request, defaultReplayForm(Date.now()), notice))
  })
  app.post('/deliveries/replay', form('webhook.replay'), async (request, reply) => {
    const f = formOf(request)
    const typed: ReplayForm = {
      createdFrom: (f.createdFrom ?? '').slice(0, 40),
      createdTo: (f.createdTo ?? '').slice(0, 40),
      userId: (f.userId ?? '').trim().slice(0, 15),
      endpointId: (f.endpointId ?? '').trim().slice(0, 15),
    }
    try {
      const { queued } = await o.console.replay(replayFilterOf(typed), actorOf(request))
      return await redirectShowingOnce(o, request, reply, '/console/deliveries', {
        notice: queued === 0 ? 'No failed delivery in that window: nothing queued.' : `${queued} failed deliver${queued === 1 ? 'y' : 'ies'} queued again.`,
      })
    } catch (error) {
      const reason = refusalReason(error)
      return sendPage(reply, await deliveriesPage(request, typed, { kind: 'error', text: `Nothing replayed: ${reason}` }), 400)
    }
  })
  app.get('/carriers', hide, async (request, reply) => {
    const carriers = await o.console.pacedCarriers()
    return sendPage(
      reply,
      show(request, 'carriers', 'Carriers', () => carriersView(carriers)),
    )
  })
  app.get('/transit', hide, async (request, reply) => {
    const overview = await o.transit.overview()
    return sendPage(
      reply,
      show(request, 'transit', 'Transit times', () => transitView(overview)),
    )
  })
  app.get('/settings', hide, async (request, reply) => {
    const settings = await o.settings.get()
    return sendPage(
      reply,
      show(request, 'settings', 'Settings', (ctx) => settingsView(settings, ctx)),
    )
  })
  app.post('/settings', form('settings.update'), async (request, reply) => {
    const form = formOf(request)
    // The form sends text: an integer setting as the integer it spells, else as given (the service says what is wrong).
    const patch = Object.fromEntries(
      SETTING_SPECS.filter(([name]) => name in form).map(([name, spec]) => [
        name,
        spec.kind === 'integer' && /^-?\d{1,10}$/.test(form[name]!.trim()) ? Number(form[name]) : form[name],
      ]),
    )
    try {
      await o.settings.update(patch, actorOf(request))
      return reply.code(303).header('location', '/console/settings?notice=saved').send()
    } catch (error) {
      const reason = refusalReason(error)
      const current = await o.settings.get()
      return sendPage(
        reply,
        show(request, 'settings', 'Settings', (ctx) => settingsView(current, ctx), { kind: 'error', text: `Not saved: ${reason}` }),
        400,
      )
    }
  })
}
