import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * 17TRACK's push signature: header `sign` = lowercase hex SHA-256 of the raw body's bytes, "/" and
 * the API key (a plain hash, not an HMAC). Computed over the bytes as received, before any parse:
 * a body parsed and written again is another body.
 */
export function pushSignature(rawBody: Buffer, apiKey: string): string {
  return createHash('sha256').update(rawBody).update('/').update(apiKey, 'utf8').digest('hex')
}

/** Whether `sign` signs `rawBody` with `apiKey`, compared in constant time. */
export function verifyPushSignature(rawBody: Buffer, sign: unknown, apiKey: string): boolean {
  if (typeof sign !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sign)) return false
  return timingSafeEqual(Buffer.from(sign.toLowerCase(), 'hex'), Buffer.from(pushSignature(rawBody, apiKey), 'hex'))
}
