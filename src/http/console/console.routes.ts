import type { FastifyError, FastifyInstance } from 'fastify'
import { roleOf } from '../../domain/audit'
import { AppError } from '../../domain/errors'
import { may } from '../../domain/operators'
import { classify, HTTP_STATUS } from '../error-handler'
import { CONSOLE_CSS, CONSOLE_ICON, CONSOLE_JS } from './assets'
import { clearSessionCookie, cookieOf, setSessionCookie } from './console-session'
import { formOf, sendPage, type ConsoleOptions } from './console-http'
import { consolePages } from './console-pages'
import { teamPages } from './team-pages'
import { csvPages } from './csv-pages'
import { notificationPages } from './notification-pages'
import { errorPage, signInPage } from './layout'

/**
 * The operator console (docs/console.md): server-rendered pages under /console, only when
 * ADMIN_TOKEN is set. Signing in (an operator's email and password, or the admin token) gives a
 * session cookie; every form carries the session's CSRF token and names its action, which the
 * signed-in role must be allowed; every action goes through the services the admin API uses.
 */
export async function consoleRoutes(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const { sessions } = options
  app.decorateRequest('consoleSession', undefined)
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })

  // Errors as pages a person understands; the status still from the one table.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = classify(error)
    if (appError.code === 'internal_error') request.log.error({ err: error }, 'console request failed')
    if (appError.code === 'rate_limited' && appError.retryAfterSeconds) reply.header('retry-after', String(appError.retryAfterSeconds))
    return sendPage(reply, errorPage(HTTP_STATUS[appError.code], appError.message, request.consoleSession !== undefined), HTTP_STATUS[appError.code])
  })
  app.setNotFoundHandler((request, reply) =>
    sendPage(reply, errorPage(404, 'There is no such page in the console.', request.consoleSession !== undefined), 404),
  )

  app.get('/assets/console.css', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(CONSOLE_CSS),
  )
  app.get('/assets/console.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(CONSOLE_JS),
  )

  app.get('/assets/icon.svg', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=3600').send(CONSOLE_ICON),
  )

  app.get('/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const ended = (request.query as Record<string, string>).ended === '1'
    return sendPage(reply, signInPage(ended ? 'Your session has ended (it expired, or you signed out elsewhere). Sign in again.' : undefined))
  })

  // An operator's email and password, or (the form below it) the admin token.
  app.post('/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const form = formOf(request)
    const withToken = form.token !== undefined
    try {
      const { cookie, maxAgeSeconds } = withToken
        ? await sessions.signInWithToken(form.token, options.adminToken, request.ip)
        : await sessions.signInWithPassword(form.email, form.password, request.ip)
      setSessionCookie(request, reply, cookie, maxAgeSeconds)
      return reply.code(303).header('location', '/console').send()
    } catch (error) {
      if (!(error instanceof AppError) || (error.code !== 'unauthorized' && error.code !== 'rate_limited')) throw error
      if (error.retryAfterSeconds) reply.header('retry-after', String(error.retryAfterSeconds))
      const message =
        error.code === 'rate_limited'
          ? error.message
          : withToken
            ? 'That is not the admin token. Check ADMIN_TOKEN and try again.'
            : `Not signed in: ${error.message}.`
      return sendPage(reply, signInPage(message, withToken ? '' : (form.email ?? '').slice(0, 254)), HTTP_STATUS[error.code])
    }
  })

  // Everything else needs a session; a form also needs the session's CSRF token.
  await app.register(async (signedIn) => {
    signedIn.addHook('preHandler', async (request, reply) => {
      const cookie = cookieOf(request)
      const session = await sessions.find(cookie, request.ip)
      if (!session) {
        if (cookie) clearSessionCookie(request, reply)
        return reply
          .code(303)
          .header('location', cookie ? '/console/sign-in?ended=1' : '/console/sign-in')
          .send()
      }
      request.consoleSession = session
      if (request.method !== 'POST') return
      // A form carries the token as a field; a file the page sends itself (a CSV import), as a header.
      const csrf = typeof request.body === 'string' ? request.headers['x-csrf-token'] : formOf(request)._csrf
      if (!sessions.csrfValid(session, typeof csrf === 'string' ? csrf : undefined)) {
        throw new AppError(
          'forbidden',
          'This form did not come from this console session (its security token is missing or stale). Go back, reload the page and try again.',
        )
      }
      // Every form names its action, and the role is checked here, on the server, whatever the
      // page offered; a form without an action is refused (signing out needs none).
      const action = request.routeOptions.config.action
      if (request.routeOptions.url === '/console/sign-out') return
      if (action === undefined || !may(roleOf(session.actor), action)) {
        if (action !== undefined)
          await options.audit.denied(session.actor, { action, target: { kind: 'console' }, detail: { path: request.url.slice(0, 200) } })
        throw new AppError('forbidden', `Your role (${roleOf(session.actor)}) may not do this. An admin can, or can give you a role that may.`)
      }
    })
    signedIn.post('/sign-out', { schema: { hide: true } }, async (request, reply) => {
      await sessions.signOut(cookieOf(request))
      clearSessionCookie(request, reply)
      return reply.code(303).header('location', '/console/sign-in').send()
    })
    await consolePages(signedIn, options)
    await teamPages(signedIn, options)
    await notificationPages(signedIn, options)
    await csvPages(signedIn, options)
  })
}
