import { randomUUID } from 'node:crypto'
import AjvCompiler from '@fastify/ajv-compiler'
import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifySchemaCompiler, type RouteOptions } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Registry } from 'prom-client'
import type { ApiUserService } from '../services/api-user.service'
import type { AuditTrail } from '../services/audit-trail'
import type { OperatorService } from '../services/operator.service'
import type { AuthService } from '../services/auth.service'
import type { HealthService } from '../services/health.service'
import type { SettingsService } from '../services/settings.service'
import type { SubscriptionService } from '../services/subscription.service'
import type { SubscriptionImportService } from '../services/subscription-import.service'
import type { TaskService } from '../services/task.service'
import type { CarrierChangeService } from '../services/carrier-change.service'
import type { AccountSettingsService } from '../services/account-settings.service'
import type { CarrierCatalogService } from '../services/carrier-catalog.service'
import type { TransitService } from '../services/transit.service'
import type { TrackingPageService } from '../services/tracking-page.service'
import type { NotificationService } from '../services/notification.service'
import type { SmsCallbackService } from '../services/sms-callback.service'
import { twilioRoutes } from './routes/twilio.routes'
import { inboundRoutes } from './routes/inbound.routes'
import type { InboundService } from '../services/inbound.service'
import { trackingPageRoutes } from './routes/tracking-page.routes'
import { unsubscribeRoutes } from './routes/unsubscribe.routes'
import type { ConsoleSessionService } from '../services/console-session.service'
import type { ConsoleService } from '../services/console.service'
import type { DeliveryLogService } from '../services/delivery-log.service'
import type { WebhookEndpointService } from '../services/webhook-endpoint.service'
import type { WebhookHistoryService } from '../services/webhook-history.service'
import type { ApiPressure } from '../services/api-pressure'
import { AppError } from '../domain/errors'
import { errorEnvelope, frameworkErrorHandler, installErrorHandling } from './error-handler'
import { AJV_OPTIONS } from './request-check'
import { createRegistry } from '../observability/metrics'
import { installMetrics } from './metrics'
import { installRateLimits, type RateLimitOptions } from './rate-limit'
import { adminRoutes } from './routes/admin.routes'
import { healthRoutes } from './routes/health.routes'
import { apiRoutes } from './routes/api.routes'
import { consoleRoutes } from './console/console.routes'
import { openapiOptions } from './openapi'
import { parameterCompiler } from './parameters'
import { DeferredCompiles, type Serializer, type Validator } from './deferred-compile'
import { registerComponents } from './schemas/components'

export interface AppServices {
  auth: AuthService
  inbound: InboundService
  subscriptions: SubscriptionService
  imports: SubscriptionImportService
  tasks: TaskService
  changes: CarrierChangeService
  accountSettings: AccountSettingsService
  users: ApiUserService
  settings: SettingsService
  health: HealthService
  webhooks: WebhookHistoryService
  endpoints: WebhookEndpointService
  deliveryLog: DeliveryLogService
  carriers: CarrierCatalogService
  consoleSessions: ConsoleSessionService
  console: ConsoleService
  transit: TransitService
  pages: TrackingPageService
  notifications: NotificationService
  sms: SmsCallbackService
  audit: AuditTrail
  operators: OperatorService
}

export interface AppOptions {
  services: AppServices
  /** Enables /admin; undefined answers 404 there. */
  adminToken: string | undefined
  /** The process's logger; none when absent (tests). */
  logger?: FastifyBaseLogger
  registry?: Registry
  /** PUBLIC_BASE_URL: the origin callers reach the service at, which the SMS provider signs its callbacks' URLs with. */
  publicBaseUrl?: string
  /** false for a worker process: only /healthz, /readyz and /metrics. */
  api?: boolean
  /** Off when absent. */
  rateLimits?: RateLimitOptions
  /** Told of every request's start and end, for the workers of the same process (ROLE=all). */
  pressure?: ApiPressure
  /** Serves POST /mcp (MCP_ENABLED); 404 there when absent. */
  mcp?: boolean
}

const BODY_LIMIT = 1024 * 1024
const buildAjv = AjvCompiler()

const buildFjs = SerializerSelector()

/**
 * Response serializers, compiled once per shape: every operation's error answers are the one
 * Error envelope under another description, and compiling each separately was a third of the
 * app's start.
 */
const serializerFactory =
  (deferred: DeferredCompiles) =>
  (externalSchemas: Parameters<ReturnType<typeof SerializerSelector>>[0], options: Parameters<ReturnType<typeof SerializerSelector>>[1]) => {
    const compile = buildFjs(externalSchemas, options)
    const compiled = new Map<string, Serializer>()
    return (route: Parameters<typeof compile>[0]) => {
      const { description: _description, headers: _headers, ...shape } = route.schema as Record<string, unknown>
      const key = JSON.stringify(shape)
      let serializer = compiled.get(key)
      if (!serializer) compiled.set(key, (serializer = deferred.serializer(() => compile(route) as Serializer)))
      return serializer
    }
  }

const validatorFactory = (deferred: DeferredCompiles) => (externalSchemas: Parameters<typeof buildAjv>[0], ajvOptions: Parameters<typeof buildAjv>[1]) => {
  const ajv = buildAjv(externalSchemas, ajvOptions) as unknown as FastifySchemaCompiler<unknown>
  return (route: Parameters<FastifySchemaCompiler<unknown>>[0]) =>
    route.httpPart === 'params' || route.httpPart === 'querystring' ? parameterCompiler(route as never) : deferred.validator(() => ajv(route) as Validator)
}
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const deferred = new DeferredCompiles()
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: BODY_LIMIT,
    // A caller's X-Request-Id is kept when it is sane, so logs can be joined across services.
    genReqId: (request) => {
      const given = request.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
    ajv: AJV_OPTIONS,
    // Bodies by Ajv; path and query parameters (strings in a URL) by their own strict compiler.
    schemaController: {
      compilersFactory: {
        buildValidator: validatorFactory(deferred) as never,
        buildSerializer: serializerFactory(deferred) as never,
      },
    },
    routerOptions: { maxParamLength: 200 },
    frameworkErrors: frameworkErrorHandler,
    // Requests Node cannot even parse (headers over 16 KiB, broken HTTP) still get the envelope.
    clientErrorHandler: (error, socket) => {
      if (!socket.writable) return socket.destroy()
      const tooLarge = (error as NodeJS.ErrnoException).code === 'HPE_HEADER_OVERFLOW'
      const body = JSON.stringify(
        errorEnvelope(new AppError('validation_error', tooLarge ? 'the request headers are too large (16 KiB at most)' : 'the request is not valid HTTP')),
      )
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
  app.addHook('onListen', (done) => {
    deferred.compileRest((error) => app.log.error({ err: error }, 'a route schema does not compile'))
    done()
  })
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  const { pressure } = options
  if (pressure) {
    app.addHook('onRequest', (_request, reply, done) => {
      pressure.began()
      // A response closes once, whether it was answered or its connection went first.
      reply.raw.once('close', () => pressure.ended())
      done()
    })
  }
  installErrorHandling(app)
  installMetrics(app, options.registry ?? createRegistry())
  if (options.rateLimits) installRateLimits(app, options.rateLimits)

  registerComponents(app)
  await app.register(swagger, openapiOptions)
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  const { services } = options
  await app.register(healthRoutes, { health: services.health })
  if (options.api === false) return app
  // The MCP server's tools run the API's operations, found by their operationId.
  const operations = new Map<string, RouteOptions>()
  app.addHook('onRoute', (route) => {
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId
    // Fastify adds a HEAD twin of each GET, under the same schema.
    if (operationId && route.method !== 'HEAD') operations.set(operationId, route)
  })
  await app.register(apiRoutes, {
    auth: services.auth,
    subscriptions: services.subscriptions,
    imports: services.imports,
    tasks: services.tasks,
    changes: services.changes,
    accountSettings: services.accountSettings,
    webhooks: services.webhooks,
    endpoints: services.endpoints,
    deliveryLog: services.deliveryLog,
    carriers: services.carriers,
    transit: services.transit,
    pages: services.pages,
    notifications: services.notifications,
  })
  // Loaded only when served: the SDK is not worth its start time and memory otherwise.
  if (options.mcp) await app.register((await import('./mcp/mcp.routes')).mcpRoutes, { auth: services.auth, operations })
  await app.register(trackingPageRoutes, { pages: services.pages })
  await app.register(unsubscribeRoutes, { notifications: services.notifications })
  await app.register(twilioRoutes, { sms: services.sms, publicBaseUrl: options.publicBaseUrl ?? '' })
  await app.register(inboundRoutes, { inbound: services.inbound })
  if (options.adminToken) {
    await app.register(adminRoutes, {
      adminToken: options.adminToken,
      users: services.users,
      settings: services.settings,
      operators: services.operators,
      audit: services.audit,
      notifications: services.notifications,
    })
    await app.register(consoleRoutes, {
      prefix: '/console',
      adminToken: options.adminToken,
      sessions: services.consoleSessions,
      console: services.console,
      users: services.users,
      settings: services.settings,
      tasks: services.tasks,
      imports: services.imports,
      endpoints: services.endpoints,
      transit: services.transit,
      pages: services.pages,
      notifications: services.notifications,
      operators: services.operators,
      audit: services.audit,
    })
  }
  return app
}
