import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Registry } from 'prom-client'
import type { ApiUserService } from '../services/api-user.service'
import type { AuthService } from '../services/auth.service'
import type { HealthService } from '../services/health.service'
import type { SettingsService } from '../services/settings.service'
import type { SubscriptionService } from '../services/subscription.service'
import type { WebhookHistoryService } from '../services/webhook-history.service'
import { frameworkErrorHandler, installErrorHandling } from './error-handler'
import { createRegistry } from '../observability/metrics'
import { installMetrics } from './metrics'
import { installRateLimits, type RateLimitOptions } from './rate-limit'
import { adminRoutes } from './routes/admin.routes'
import { healthRoutes } from './routes/health.routes'
import { apiRoutes } from './routes/api.routes'

export interface AppServices {
  auth: AuthService
  subscriptions: SubscriptionService
  users: ApiUserService
  settings: SettingsService
  health: HealthService
  webhooks: WebhookHistoryService
}

export interface AppOptions {
  services: AppServices
  /** Enables /admin; undefined answers 404 there. */
  adminToken: string | undefined
  logger?: FastifyServerOptions['logger']
  registry?: Registry
  /** false for a worker process: only /healthz, /readyz and /metrics. */
  api?: boolean
  /** Off when absent. */
  rateLimits?: RateLimitOptions
}

const BODY_LIMIT = 1024 * 1024
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT,
    // A caller's X-Request-Id is kept when it is sane, so logs can be joined across services.
    genReqId: (request) => {
      const given = request.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
    ajv: {
      // Decisions §4: types are never coerced; every field problem is reported at once.
      customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false, useDefaults: false },
    },
    routerOptions: { maxParamLength: 200 },
    frameworkErrors: frameworkErrorHandler,
    // Requests Node cannot even parse (headers over 16 KiB, broken HTTP) still get the envelope.
    clientErrorHandler: (error, socket) => {
      if (!socket.writable) return socket.destroy()
      const tooLarge = (error as NodeJS.ErrnoException).code === 'HPE_HEADER_OVERFLOW'
      const body = JSON.stringify({
        code: 400,
        data: { error: 'validation_error' },
        msg: tooLarge ? 'the request headers are too large (16 KiB at most)' : 'the request is not valid HTTP',
      })
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  // JSON only: without this a text/plain body would reach the handlers as a string. An empty
  // JSON body is "no body" (a POST like redeliver needs none); where a body is required, its
  // validation says so.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser(['text/plain', 'application/json'])
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body === '' ? done(null, undefined) : parseJson(request, body as string, done),
  )
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  installErrorHandling(app)
  installMetrics(app, options.registry ?? createRegistry())
  if (options.rateLimits) installRateLimits(app, options.rateLimits)

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Tracking subscription API',
        version: '1.0.0',
        description: 'Subscribe parcels by carrier and tracking number; query their normalised tracking; receive signed webhooks on every status change.',
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'an API token issued by the back office' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
        },
      },
    },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  const { services } = options
  await app.register(healthRoutes, { health: services.health })
  if (options.api === false) return app
  await app.register(apiRoutes, { auth: services.auth, subscriptions: services.subscriptions, webhooks: services.webhooks })
  if (options.adminToken) {
    await app.register(adminRoutes, { adminToken: options.adminToken, users: services.users, settings: services.settings })
  }
  return app
}
