import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import type { webhooks } from './api.js'

type Body<K extends keyof webhooks> = NonNullable<webhooks[K]['post']>['requestBody'] extends infer R
  ? NonNullable<R> extends { content: { 'application/json': infer B } }
    ? B
    : never
  : never

/** Every event the service sends, by its `type`: the document's `webhooks`. */
export type WebhookEvent = { [K in keyof webhooks]: Body<K> }[keyof webhooks]
export type WebhookEventType = WebhookEvent['type']

/** The headers of a webhook request, as Node's `IncomingHttpHeaders`, a Fetch `Headers` or a plain record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

export { WebhookVerificationError }

/**
 * A webhook's body, once its signature holds (Standard Webhooks): `webhook-signature` carries a
 * signature of one of `secrets` over `webhook-id`, `webhook-timestamp` and the raw body, and the
 * timestamp is within 5 minutes of now. During a rotation the service signs with the new and the
 * old secret (two signatures in the header), so a receiver with either verifies; pass both of yours
 * while you roll yours out. Throws WebhookVerificationError otherwise.
 *
 * `rawBody` is the body exactly as received: parsed and serialised again, it no longer verifies.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string | readonly string[]): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)
  const plain = plainHeaders(headers)
  const secrets = typeof secret === 'string' ? [secret] : secret
  let failure: unknown = new WebhookVerificationError('no secret to verify with')
  for (const candidate of secrets) {
    try {
      return new Webhook(candidate).verify(body, plain) as WebhookEvent
    } catch (error) {
      failure = error
    }
  }
  throw failure
}

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const plain: Record<string, string> = {}
  const entries: Iterable<[string, string | string[] | undefined]> =
    typeof (headers as Headers).get === 'function' ? (headers as Headers).entries() : Object.entries(headers)
  for (const [name, value] of entries) if (value !== undefined) plain[name.toLowerCase()] = Array.isArray(value) ? value.join(' ') : value
  return plain
}
