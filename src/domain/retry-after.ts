/** Retry-After as seconds or an HTTP date, in ms from `now`; bounded to an hour. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value
  if (!text) return undefined
  const ms = /^\d+$/.test(text.trim()) ? Number(text.trim()) * 1000 : Date.parse(text) - now
  if (!Number.isFinite(ms) || ms < 0) return undefined
  return Math.min(ms, 3_600_000)
}
