import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { loadConfig } from '../../src/config/config'
import { buildApp, type AppServices } from '../../src/http/app'
import type { CarrierDetector } from '../../src/services/route-detection'
import type { RateLimitOptions } from '../../src/http/rate-limit'
import { createServices, type Wakeups } from '../../src/main/container'
import type { CarrierModes } from '../../src/services/health.service'
import type { Database } from '../../src/db/database'
import { createTestDatabase, type TestDatabase } from './test-database'
import { WebhookHttp } from '../../src/webhooks/webhook-http'
import type { ApiPressure } from '../../src/services/api-pressure'

export const ADMIN_TOKEN = 'test-admin-token-0123456789'

/** The wake-ups the services send, counted; a test may also act on them. */
export class RecordingWakeups implements Wakeups {
  tasks = 0
  deliveries = 0
  onTasksDue: () => void = () => {}
  onDeliveriesDue: () => void = () => {}
  tasksDue(): void {
    this.tasks++
    this.onTasksDue()
  }
  deliveriesDue(): void {
    this.deliveries++
    this.onDeliveriesDue()
  }
  pushes = 0
  pushesDue(): void {
    this.pushes++
  }
}

export interface TestApp {
  app: FastifyInstance
  wakeups: RecordingWakeups
  db: Database
  database: TestDatabase
  services: AppServices
  /** Creates an API user through the back-office service; returns its id and bearer token. */
  createUser(name?: string): Promise<{ userId: number; token: string; webhookSecret: string }>
  /** `app.inject` with this token as bearer. */
  as(token: string, options: InjectOptions): Promise<LightMyRequestResponse>
  close(): Promise<void>
}

export interface TestAppOptions {
  adminToken?: string | undefined
  tokenCacheTtlMs?: number
  /** Share another test app's database (two "processes" on one database). */
  database?: TestDatabase
  /** How each carrier runs; by default every carrier of the registry on the simulator, as `npm start` has it. */
  carrierModes?: CarrierModes
  /** The token cache's clock; the real one by default. */
  tokenCacheClock?: () => number
  /** Told of every request, as in a ROLE=all process. */
  pressure?: ApiPressure
  /** PUBLIC_BASE_URL, for a test whose app listens and receives signed callbacks (Twilio's). */
  publicBaseUrl?: string
  /** Serves POST /mcp (MCP_ENABLED); on unless false. */
  mcp?: boolean
  /** Off when absent. */
  rateLimits?: RateLimitOptions
  /** AUTO through a route's detection (none by default). */
  carrierDetector?: CarrierDetector
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase())
  const wakeups = new RecordingWakeups()
  // Test receivers listen on loopback.
  const webhookHttp = new WebhookHttp({ timeoutMs: 2000, allowPrivateTargets: true })
  const services = createServices(
    database.db,
    // The defaults of a fresh clone; its carriers on the simulator polled every two hours.
    { ...loadConfig({ POLL_INTERVAL_SECONDS: '7200' }), tokenCacheTtlMs: options.tokenCacheTtlMs ?? 2000 },
    {
      carrierModes: options.carrierModes,
      tokenCacheClock: options.tokenCacheClock,
      carrierDetector: options.carrierDetector,
      wakeups,
      webhookHttp,
      consoleOverviewTtlMs: 0,
    },
  )
  const app = await buildApp({
    services,
    adminToken: 'adminToken' in options ? options.adminToken : ADMIN_TOKEN,
    pressure: options.pressure,
    publicBaseUrl: options.publicBaseUrl,
    mcp: options.mcp ?? true,
    rateLimits: options.rateLimits,
  })
  await app.ready()
  return {
    app,
    wakeups,
    db: database.db,
    database,
    services,
    async createUser(name = 'acme') {
      const user = await services.users.create(name)
      return { userId: user.userId, token: user.token, webhookSecret: user.webhookSecret }
    },
    as(token, injectOptions) {
      return app.inject({ ...injectOptions, headers: { authorization: `Bearer ${token}`, ...injectOptions.headers } })
    },
    async close() {
      await app.close()
      await webhookHttp.close()
      if (!options.database) await database.close()
    },
  }
}
