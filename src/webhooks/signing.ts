import { createHmac } from 'node:crypto'

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): base64 HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>", keyed by the base64 part of the "whsec_" secret.
 * During a secret rotation the header carries one signature per live secret, space-separated.
 */
export function signature(secret: string, webhookId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64')
  return `v1,${createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`
}

export function signatureHeader(secrets: string[], webhookId: string, timestamp: number, body: string): string {
  return secrets.map((secret) => signature(secret, webhookId, timestamp, body)).join(' ')
}

/** The headers of every webhook request: its type, who sends it, and the Standard Webhooks trio. */
export function webhookHeaders(secrets: string[], webhookId: string, timestamp: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'tracking-subscriptions-webhooks/1.0',
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, webhookId, timestamp, body),
  }
}
