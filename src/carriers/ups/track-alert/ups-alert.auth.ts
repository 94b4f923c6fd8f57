import { createHmac, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import type { PushSettings } from '../../carrier-push'

/**
 * How UPS's pushes prove they are UPS's (docs/carriers.md, "UPS Track Alert"). UPS signs nothing:
 * - v1: the subscription carries our secret as `destination.credential`, and UPS sends it back in
 *   a `credential` header on every push (some senders as `Authorization: Bearer <credential>`).
 * - v2: UPS is an OAuth client of ours: it fetches a token from our token endpoint with the client
 *   id and secret set in its portal (client_secret_basic) and pushes with `Authorization: Bearer
 *   <token>` and `x-api-key: <client id>`.
 * Both rest on the one secret. Tokens are an HMAC of their expiry under it: any process verifies
 * them without a database, and none outlives an hour.
 */

export const TOKEN_LIFETIME_S = 3600

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8')
  const right = Buffer.from(b, 'utf8')
  return left.length === right.length && timingSafeEqual(left, right)
}

function tokenMac(secret: string, expiresAt: number): string {
  return createHmac('sha256', secret).update(`ups-track-alert ${expiresAt}`).digest('base64url')
}

/** A token of ours for UPS's pushes, valid until `now` + an hour. */
export function alertToken(secret: string, now: number): string {
  const expiresAt = Math.floor(now / 1000) + TOKEN_LIFETIME_S
  return `${expiresAt}.${tokenMac(secret, expiresAt)}`
}

function tokenHolds(token: string, secret: string, now: number): boolean {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token)
  if (!match) return false
  const expiresAt = Number(match[1])
  return expiresAt * 1000 > now && sameText(match[2]!, tokenMac(secret, expiresAt))
}

/** RFC 6749 form-encodes the pair before Base64; a malformed escape reads as itself. */
function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return text
  }
}

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name]
  return typeof value === 'string' ? value.trim() : ''
}

/** Whether a push presents our secret (v1) or a live token of ours with our client id (v2). */
export function verifyAlertPush(headers: IncomingHttpHeaders, settings: PushSettings, now: number): boolean {
  if (!settings.secret) return false
  const credential = header(headers, 'credential')
  if (credential) return sameText(credential, settings.secret)
  const bearer = /^Bearer (\S+)$/i.exec(header(headers, 'authorization'))?.[1] ?? ''
  if (!bearer) return false
  if (tokenHolds(bearer, settings.secret, now)) return sameText(header(headers, 'x-api-key'), settings.clientId)
  return sameText(bearer, settings.secret)
}

/**
 * The token endpoint's answer to UPS (client credentials, client_secret_basic): a token when the
 * Basic pair is our client id and secret and the grant is client_credentials; null otherwise.
 */
export function grantAlertToken(
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  settings: PushSettings,
  now: number,
): { accessToken: string; expiresIn: number } | null {
  if (!settings.secret) return null
  const encoded = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header(headers, 'authorization'))?.[1] ?? ''
  const pair = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = pair.indexOf(':')
  const form = new URLSearchParams(rawBody.toString('utf8'))
  if (colon < 0 || form.get('grant_type') !== 'client_credentials') return null
  // Both halves compared, whatever the first says: the answer's time tells nothing.
  const idHolds = sameText(formDecoded(pair.slice(0, colon)), settings.clientId)
  const secretHolds = sameText(formDecoded(pair.slice(colon + 1)), settings.secret)
  return idHolds && secretHolds ? { accessToken: alertToken(settings.secret, now), expiresIn: TOKEN_LIFETIME_S } : null
}
