import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp, type AppServices } from '../../src/http/app'
import { createServices } from '../../src/main/container'
import type { Database } from '../../src/db/database'
import { createTestDatabase, type TestDatabase } from './test-database'

export const ADMIN_TOKEN = 'test-admin-token-0123456789'

export interface TestApp {
  app: FastifyInstance
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
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase())
  const services = createServices(database.db, { tokenCacheTtlMs: options.tokenCacheTtlMs ?? 2000 }, { FEDEX: 'simulator', UPARCEL: 'simulator' })
  const app = await buildApp({ services, adminToken: 'adminToken' in options ? options.adminToken : ADMIN_TOKEN })
  await app.ready()
  return {
    app,
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
      if (!options.database) await database.close()
    },
  }
}
