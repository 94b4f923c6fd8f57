import type { FastifyError, FastifyInstance } from 'fastify'
import { AppError } from '../../domain/errors'
import { classify, HTTP_STATUS } from '../error-handler'
import { CONSOLE_CSS, CONSOLE_ICON, CONSOLE_JS } from './assets'
import { clearSessionCookie, cookieOf, setSessionCookie } from './console-session'
import { formOf, sendPage, type ConsoleOptions } from './console-http'
import { consolePages } from './console-pages'
import { errorPage, signInPage } from './layout'

/**
 * The operator console (docs/console.md): server-rendered pages under /console, only when
 * ADMIN_TOKEN is set. Signing in with the admin token gives a session cookie; every form carries
 * the session's CSRF token; every action goes through the services the admin API uses.
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

  app.post('/sign-in', { schema: { hide: true } }, async (request, reply) => {
    try {
      const { cookie, maxAgeSeconds } = await sessions.signIn(formOf(request).token, options.adminToken, request.ip)
      setSessionCookie(request, reply, cookie, maxAgeSeconds)
      return reply.code(303).header('location', '/console').send()
    } catch (error) {
      if (!(error instanceof AppError) || (error.code !== 'unauthorized' && error.code !== 'rate_limited')) throw error
      if (error.retryAfterSeconds) reply.header('retry-after', String(error.retryAfterSeconds))
      return sendPage(
        reply,
        signInPage(error.code === 'unauthorized' ? 'That is not the admin token. Check ADMIN_TOKEN and try again.' : error.message),
        HTTP_STATUS[error.code],
      )
    }
  })

  // Everything else needs a session; a form also needs the session's CSRF token.
  await app.register(async (signedIn) => {
    signedIn.addHook('preHandler', async (request, reply) => {
      const cookie = cookieOf(request)
      const session = await sessions.find(cookie)
      if (!session) {
        if (cookie) clearSessionCookie(request, reply)
        return reply
          .code(303)
          .header('location', cookie ? '/console/sign-in?ended=1' : '/console/sign-in')
          .send()
      }
      request.consoleSession = session
      if (request.method === 'POST' && !sessions.csrfValid(session, formOf(request)._csrf)) {
        throw new AppError(
          'forbidden',
          'This form did not come from this console session (its security token is missing or stale). Go back, reload the page and try again.',
        )
      }
    })
    signedIn.post('/sign-out', { schema: { hide: true } }, async (request, reply) => {
      await sessions.signOut(cookieOf(request))
      clearSessionCookie(request, reply)
      return reply.code(303).header('location', '/console/sign-in').send()
    })
    await consolePages(signedIn, options)
  })
}
