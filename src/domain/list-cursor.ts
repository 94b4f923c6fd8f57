import { createHmac, timingSafeEqual } from 'node:crypto'
import type { FieldError } from './errors'

/**
 * Keyset cursors of the lists (tasks, deliveries). A cursor names the position after the last row
 * of a page (its sort key, exactly as the database writes it, and its id) and is bound by an HMAC
 * to the user and the listing it came from (filters and sort): a cursor changed by hand, or used
 * by another user or with other filters, is refused.
 */

export interface ListPosition {
  key: string
  id: number
}

/** What a cursor is bound to. */
export interface Listing {
  userId: number
  filters: object
  sort: string
}

/** The filters in one canonical text, so that the same listing always gives the same binding. */
function listingOf({ userId, filters, sort }: Listing): string {
  const canonical = Object.entries(filters)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, v instanceof Date ? v.toISOString() : Array.isArray(v) ? [...v].sort() : v] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1))
  return JSON.stringify([userId, sort, canonical])
}

function mac(secret: Buffer, listing: string, position: ListPosition): Buffer {
  return createHmac('sha256', secret).update(listing).update('\0').update(position.key).update('\0').update(String(position.id)).digest().subarray(0, 16)
}

export function encodeCursor(secret: Buffer, query: Listing, position: ListPosition): string {
  const body = Buffer.from(JSON.stringify([position.key, position.id])).toString('base64url')
  return `${body}.${mac(secret, listingOf(query), position).toString('base64url')}`
}

/** The position a cursor names, or the problem with it. */
export function decodeCursor(secret: Buffer, query: Listing, cursor: string): { ok: true; position: ListPosition } | { ok: false; details: FieldError[] } {
  const refuse = (message: string) => ({ ok: false as const, details: [{ field: 'cursor', message }] })
  const [body, signature, extra] = cursor.split('.')
  if (!body || !signature || extra !== undefined) return refuse('is not a cursor of this API')
  let position: ListPosition
  try {
    const [key, id] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [unknown, unknown]
    if (typeof key !== 'string' || !Number.isSafeInteger(id)) return refuse('is not a cursor of this API')
    position = { key, id: id as number }
  } catch {
    return refuse('is not a cursor of this API')
  }
  const expected = mac(secret, listingOf(query), position)
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return refuse('does not belong to this listing (it was changed, or made for other filters, another sort or another user)')
  }
  return { ok: true, position }
}
