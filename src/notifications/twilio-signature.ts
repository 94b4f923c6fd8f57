import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Twilio's request signature (X-Twilio-Signature): base64 of HMAC-SHA1 under the account's auth
 * token, over the full URL Twilio requested followed by each POST parameter's name and value,
 * sorted by name. Used to verify the status and inbound callbacks, and by the simulator to sign
 * them.
 */
export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]>): string {
  const sorted = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const data = url + sorted.map(([name, value]) => name + value).join('')
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64')
}

/** Whether a callback's signature is the one its URL and parameters make under the token; constant time. */
export function twilioSignatureValid(authToken: string, url: string, params: Iterable<[string, string]>, signature: string | undefined): boolean {
  if (!signature) return false
  const expected = Buffer.from(twilioSignature(authToken, url, params))
  const given = Buffer.from(signature)
  return expected.length === given.length && timingSafeEqual(expected, given)
}
