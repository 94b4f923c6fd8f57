import { answerKind } from '../domain/host-concurrency'
import type { ChannelSender, Outgoing, SendResult } from '../domain/outbox'
import { outcomeOfStatus } from '../domain/webhook-schedule'
import { webhookHeaders } from './signing'
import type { WebhookHttp } from './webhook-http'

/**
 * The webhook channel's sender: a Standard Webhooks-signed POST of the stored body to the
 * target's URL (SSRF-checked and pinned by WebhookHttp), judged by its status (2xx delivered,
 * 410 refused for good, anything else failed and retried) and told to the gate of its host.
 */
export class WebhookSender implements ChannelSender<'webhook'> {
  readonly channel = 'webhook'
  readonly retriesUnknownOutcome = true

  constructor(
    private readonly http: WebhookHttp,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async send(delivery: Outgoing<'webhook'>): Promise<SendResult> {
    const timestamp = Math.floor(this.now().getTime() / 1000)
    const headers = webhookHeaders(delivery.details.secrets, delivery.webhookId, timestamp, delivery.payload)
    const result = await this.http.post(delivery.address, headers, delivery.payload)
    return { ...result, outcome: outcomeOfStatus(result.statusCode), answer: answerKind(result.statusCode) }
  }

  close(): Promise<void> {
    return this.http.close()
  }
}
