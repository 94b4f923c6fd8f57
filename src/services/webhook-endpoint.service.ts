import { CARRIER_CODES } from '../carriers/registry'
import { randomBytes } from 'node:crypto'
import type { Database } from '../db/database'
import type { WebhookEndpointRepository } from '../db/webhook-endpoint.repository'
import { AppError, invalid } from '../domain/errors'
import { TEST_EVENT_TYPE } from '../domain/event-types'
import {
  ENDPOINT_SECRET_GRACE_SECONDS,
  ENDPOINTS_PER_USER,
  judgeEndpointFields,
  withDefaults,
  type EndpointInput,
  type EndpointRecord,
} from '../domain/webhook-endpoint'
import type { WebhookHttp } from '../webhooks/webhook-http'
import { webhookHeaders } from '../webhooks/signing'
import { newWebhookSecret } from './credentials'

/** What the test call answers: the receiver's status (0 without one), how long it took, what went wrong. */
export interface TestCallResult {
  responseStatusCode: number
  durationMs: number
  errorMessage: string
}

const notFound = () => new AppError('not_found', 'webhook endpoint not found')

/** Account webhook endpoints: create, list, read, change, delete, rotate the secret, test. */
export class WebhookEndpointService {
  constructor(
    private readonly db: Database,
    private readonly endpoints: WebhookEndpointRepository,
    /** The same client, SSRF policy and timeout as the deliveries. */
    private readonly http: WebhookHttp,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Creates an endpoint; its secret is in the answer, and never again (until a rotation). */
  async create(userId: number, input: EndpointInput & Pick<EndpointRecord, 'url' | 'eventTypes'>): Promise<EndpointRecord & { secret: string }> {
    const parsed = judgeEndpointFields(input, CARRIER_CODES)
    if (!parsed.ok) throw invalid(parsed.details)
    const secret = newWebhookSecret()
    const created = await this.db.transaction((tx) => this.endpoints.create(tx, userId, withDefaults(parsed.value), secret, ENDPOINTS_PER_USER))
    if (!created) throw new AppError('limit_reached', `a user has at most ${ENDPOINTS_PER_USER} webhook endpoints; delete one first`)
    return { ...created, secret }
  }

  list(userId: number): Promise<EndpointRecord[]> {
    return this.endpoints.list(userId)
  }

  async get(userId: number, endpointId: number): Promise<EndpointRecord> {
    return (await this.endpoints.find(userId, endpointId)) ?? throwNotFound()
  }

  async update(userId: number, endpointId: number, input: EndpointInput): Promise<EndpointRecord> {
    const parsed = judgeEndpointFields(input, CARRIER_CODES)
    if (!parsed.ok) throw invalid(parsed.details)
    return (await this.db.transaction((tx) => this.endpoints.update(tx, userId, endpointId, parsed.value))) ?? throwNotFound()
  }

  async delete(userId: number, endpointId: number): Promise<{ endpointId: number; deleted: true }> {
    if (!(await this.endpoints.delete(userId, endpointId))) throw notFound()
    return { endpointId, deleted: true }
  }

  /** A new secret, shown once; the old one keeps signing beside it for 24 h. */
  async rotateSecret(userId: number, endpointId: number): Promise<{ endpointId: number; secret: string; previousSecretExpiresAt: Date }> {
    const secret = newWebhookSecret()
    if (!(await this.endpoints.rotateSecret(userId, endpointId, secret, ENDPOINT_SECRET_GRACE_SECONDS))) throw notFound()
    return { endpointId, secret, previousSecretExpiresAt: new Date(this.now().getTime() + ENDPOINT_SECRET_GRACE_SECONDS * 1000) }
  }

  /**
   * Sends `webhook.test` to the endpoint now, signed as its events are, and reports what came
   * back. Nothing is stored or retried; a disabled endpoint can be tested too (before enabling it).
   */
  async test(userId: number, endpointId: number): Promise<TestCallResult> {
    const target = (await this.endpoints.signingTarget(userId, endpointId)) ?? throwNotFound()
    const now = this.now()
    const body = JSON.stringify({
      type: TEST_EVENT_TYPE,
      timestamp: now.toISOString(),
      data: { endpointId, message: 'a test of this endpoint, sent on request' },
    })
    const webhookId = `msg_${randomBytes(16).toString('hex')}`
    const result = await this.http.post(target.url, webhookHeaders(target.secrets, webhookId, Math.floor(now.getTime() / 1000), body), body)
    return { responseStatusCode: result.statusCode, durationMs: result.durationMs, errorMessage: result.error }
  }
}

function throwNotFound(): never {
  throw notFound()
}
