import createFetchClient, { type Client } from 'openapi-fetch'
import type { components, paths } from './api.js'
import { TrackingApiError } from './errors.js'
import { retryingFetch, type RetryOptions } from './retries.js'

type Schemas = components['schemas']
type Query<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never
export type ListQuery = Query<'/openapi/tracking-subscriptions/list'>
export type SubscriptionQuery = Query<'/openapi/tracking-subscriptions'>

export interface ClientOptions extends RetryOptions {
  /** Where the service is: `https://tracking.example.com` (no trailing slash needed). */
  baseUrl: string
  /** The API user's token (`trk_…`), sent as Bearer. */
  token: string
  /** A fetch of your own (a proxy, a test); the global fetch by default. */
  fetch?: typeof fetch
}

/** The API's operations, each answering its envelope's `data` or throwing TrackingApiError; `raw` for all of them as openapi-fetch has them. */
export interface TrackingClient {
  /** Every operation of the document, typed (openapi-fetch): `{ data, error, response }`, nothing thrown. */
  raw: Client<paths>
  subscribe(subscription: Schemas['Subscription']): Promise<Schemas['SubscribeResult']>
  subscribeBatch(items: Schemas['Subscription'][]): Promise<Data<'/openapi/tracking-subscriptions/batch', 'post'>>
  /** The original query: by taskId or by trackingNumber. */
  getSubscription(query: SubscriptionQuery): Promise<Schemas['Task']>
  getTask(taskId: number): Promise<Data<'/openapi/tracking-subscriptions/{taskId}', 'get'>>
  listTasks(query?: ListQuery): Promise<Schemas['TaskPage']>
  /** Every task the query matches, page after page (follows nextCursor). */
  tasks(query?: Omit<ListQuery, 'cursor'>): AsyncIterable<Schemas['FullTask']>
  stopTask(taskId: number): Promise<Schemas['FullTask']>
  refreshTask(taskId: number): Promise<Data<'/openapi/tracking-subscriptions/{taskId}/refresh', 'post', 202>>
  changeTaskCarrier(taskId: number, carrierCode: string): Promise<Schemas['FullTask']>
  deleteTask(taskId: number): Promise<Data<'/openapi/tracking-subscriptions/{taskId}', 'delete'>>
  detectCarrier(trackingNumber: string): Promise<Data<'/openapi/carriers/detect', 'get'>>
  listCarriers(): Promise<Data<'/openapi/carriers', 'get'>>
  listTaskWebhooks(taskId: number): Promise<Data<'/openapi/tracking-subscriptions/{taskId}/webhooks', 'get'>>
  redeliverTaskWebhook(taskId: number, webhookId: string): Promise<Data<'/openapi/tracking-subscriptions/{taskId}/webhooks/{webhookId}/redeliver', 'post'>>
}

/** The `data` of an operation's success envelope. */
export type Data<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': { data: infer D } } } }
}
  ? D
  : never

/** The success's data, or the error envelope thrown as a TrackingApiError. */
function unwrap<D>(result: { data?: { data: D }; error?: unknown; response: Response }): D {
  if (!result.response.ok || result.data === undefined) {
    throw new TrackingApiError(result.response.status, result.error, result.response.headers.get('x-request-id') ?? undefined)
  }
  return result.data.data
}

export function createClient(options: ClientOptions): TrackingClient {
  const raw = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.token}` },
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options),
  })
  const task = (taskId: number) => ({ params: { path: { taskId } } })
  const client: TrackingClient = {
    raw,
    subscribe: async (body) => unwrap(await raw.POST('/openapi/tracking-subscriptions', { body })),
    subscribeBatch: async (items) => unwrap(await raw.POST('/openapi/tracking-subscriptions/batch', { body: { items } })),
    getSubscription: async (query) => unwrap(await raw.GET('/openapi/tracking-subscriptions', { params: { query } })),
    getTask: async (taskId) => unwrap(await raw.GET('/openapi/tracking-subscriptions/{taskId}', task(taskId))),
    listTasks: async (query = {}) => unwrap(await raw.GET('/openapi/tracking-subscriptions/list', { params: { query } })),
    async *tasks(query = {}) {
      let cursor: string | undefined
      do {
        const page = await client.listTasks({ ...query, ...(cursor ? { cursor } : {}) })
        yield* page.items
        cursor = page.nextCursor ?? undefined
      } while (cursor)
    },
    stopTask: async (taskId) => unwrap(await raw.POST('/openapi/tracking-subscriptions/{taskId}/stop', task(taskId))),
    refreshTask: async (taskId) => unwrap(await raw.POST('/openapi/tracking-subscriptions/{taskId}/refresh', task(taskId))),
    changeTaskCarrier: async (taskId, carrierCode) =>
      unwrap(await raw.PATCH('/openapi/tracking-subscriptions/{taskId}', { ...task(taskId), body: { carrierCode } })),
    deleteTask: async (taskId) => unwrap(await raw.DELETE('/openapi/tracking-subscriptions/{taskId}', task(taskId))),
    detectCarrier: async (trackingNumber) => unwrap(await raw.GET('/openapi/carriers/detect', { params: { query: { trackingNumber } } })),
    listCarriers: async () => unwrap(await raw.GET('/openapi/carriers')),
    listTaskWebhooks: async (taskId) => unwrap(await raw.GET('/openapi/tracking-subscriptions/{taskId}/webhooks', task(taskId))),
    redeliverTaskWebhook: async (taskId, webhookId) =>
      unwrap(await raw.POST('/openapi/tracking-subscriptions/{taskId}/webhooks/{webhookId}/redeliver', { params: { path: { taskId, webhookId } } })),
  }
  return client
}
