import { afterAll, beforeAll } from 'vitest'
import { createTestApp, type TestApp } from './test-app'

export const PATH = '/openapi/tracking-subscriptions'
export const HOOK = 'https://shop.example/webhooks/tracking'

/**
 * The interface's three endpoints as two users call them (acme, and globex for tenancy), on an
 * app of the test file's own: `subscriptionApi()` at a file's top; its app and tokens are there
 * once its beforeAll has run.
 */
export interface SubscriptionApi {
  t: TestApp
  token: string
  otherToken: string
  taskCount(): Promise<number>
  subscribe(body: unknown, as?: string): ReturnType<TestApp['as']>
  batch(items: unknown, as?: string): ReturnType<TestApp['as']>
  query(qs: string, as?: string): ReturnType<TestApp['as']>
  number(prefix?: string): string
}

export function subscriptionApi(): SubscriptionApi {
  let seq = 0
  const api: SubscriptionApi = {
    t: undefined as unknown as TestApp,
    token: '',
    otherToken: '',
    async taskCount(): Promise<number> {
      const [row] = await api.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tracking_tasks')
      return row!.n
    },
    subscribe: (body: unknown, as = api.token) => api.t.as(as, { method: 'POST', url: PATH, payload: body as object }),
    batch: (items: unknown, as = api.token) => api.t.as(as, { method: 'POST', url: `${PATH}/batch`, payload: { items } as object }),
    query: (qs: string, as = api.token) => api.t.as(as, { method: 'GET', url: `${PATH}?${qs}` }),
    /** A tracking number no test has used. */
    number: (prefix = 'TN') => `${prefix}${Date.now()}${++seq}`,
  }
  beforeAll(async () => {
    api.t = await createTestApp()
    api.token = (await api.t.createUser('acme')).token
    api.otherToken = (await api.t.createUser('globex')).token
  })
  afterAll(() => api.t.close())
  return api
}
