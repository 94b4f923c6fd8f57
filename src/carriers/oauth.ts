import { CarrierError } from './carrier'
import type { CarrierHttp } from './carrier-http'

/** A token as the carrier gave it, with the rest of its answer (a carrier may say more: its scope). */
export interface OAuthToken {
  value: string
  lifetimeMs: number
  answer: Record<string, unknown>
}

/**
 * An OAuth 2 client-credentials token (RFC 6749 4.4), asked for as the carrier takes the request
 * (a form with the client's id and secret, Basic authentication, or JSON). Its lifetime is the
 * answer's `expires_in` in seconds, a number or a string (UPS writes "14399"; USPS either),
 * `fallbackSeconds` when the answer has none that makes sense.
 */
export async function clientCredentials(
  http: CarrierHttp,
  who: string,
  request: { path: string; headers: Record<string, string>; body: string },
  fallbackSeconds: number,
): Promise<OAuthToken> {
  const response = await http.post(request.path, request)
  if (response.status !== 200) throw http.failure(response, who)
  const answer = (typeof response.json === 'object' && response.json !== null ? response.json : {}) as Record<string, unknown>
  const { access_token: value } = answer
  if (typeof value !== 'string' || !value) throw new CarrierError('bad_response', `${who} answer has no access_token`)
  const seconds = Number(answer.expires_in)
  return { value, lifetimeMs: (Number.isFinite(seconds) && seconds > 0 ? seconds : fallbackSeconds) * 1000, answer }
}

/** The client-credentials form (FedEx): grant type, client id and secret in the body. */
export const credentialsForm = (clientId: string, clientSecret: string) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString(),
})

/** Basic authentication with the client's id and secret, the grant type in a form (UPS). */
export const credentialsBasic = (clientId: string, clientSecret: string) => ({
  headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
  body: 'grant_type=client_credentials',
})

/** The client-credentials request as JSON (USPS). */
export const credentialsJson = (clientId: string, clientSecret: string) => ({
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
})
