import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** API tokens: 256 random bits, shown once, stored only as their SHA-256. */
export function newApiToken(): string {
  return `trk_${randomBytes(32).toString('base64url')}`
}

/** What is kept of a token in clear to tell it apart: "trk_" and its first 8 characters (48 of its 256 bits). */
export const tokenPrefix = (token: string) => token.slice(0, 12)

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest()
}

/** A Standard Webhooks signing secret: "whsec_" + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

const MAX_TOKEN_LENGTH = 512

/** The token of an `Authorization: Bearer <token>` header; undefined for anything else. */
export function bearerToken(header: string | undefined): string | undefined {
  const token = /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1]
  return token && token.length <= MAX_TOKEN_LENGTH ? token : undefined
}

/** Compares two secrets in time independent of where they differ (and of their lengths). */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(hashToken(given), hashToken(expected))
}
