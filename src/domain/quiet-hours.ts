/**
 * Quiet hours (docs/notifications.md, "SMS"): no text reaches the shop's customer between 22:00
 * and 08:00 at the destination. The destination is the time zones a phone number may be in (its
 * prefix's, from the phone-number metadata): a text waits until it is day in every one of them,
 * unless they are so far apart (a number valid from Guam to Hawaii) that no hour is day in all,
 * when the zone in their middle decides. Pure: the clock and the zones are passed in.
 */

export const QUIET_FROM_HOUR = 22
export const QUIET_UNTIL_HOUR = 8

const STEP_MS = 15 * 60_000
// A day and a bit: every zone's day starts within it.
const LOOK_AHEAD_MS = 26 * 3600_000

const HOURS = new Map<string, Intl.DateTimeFormat>()

/** The hour (0–23) and the UTC offset in minutes of an instant in a zone; undefined for a zone Intl does not know. */
function clockIn(zone: string, at: Date): { hour: number; offsetMinutes: number } | undefined {
  let format = HOURS.get(zone)
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        hour: 'numeric',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        minute: 'numeric',
      })
    } catch {
      return undefined
    }
    HOURS.set(zone, format)
  }
  const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]))
  const local = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute))
  return { hour: Number(parts.hour), offsetMinutes: Math.round((local - Math.floor(at.getTime() / 60_000) * 60_000) / 60_000) }
}

const isDay = (hour: number) => hour >= QUIET_UNTIL_HOUR && hour < QUIET_FROM_HOUR

/**
 * When a text to a number in these zones may go: undefined when it may go now, else the first
 * quarter hour at which it is day there. No zone known (an empty list, or only zones Intl does not
 * know): UTC.
 */
export function quietUntil(zones: readonly string[], now: Date): Date | undefined {
  const known = zones.filter((zone) => clockIn(zone, now) !== undefined)
  const deciding = known.length === 0 ? ['UTC'] : known
  const dayEverywhere = (at: Date) => deciding.every((zone) => isDay(clockIn(zone, at)!.hour))
  const found = firstDay(now, dayEverywhere)
  if (found !== null) return found
  // No hour is day in every zone: the middle one by its offset now decides alone.
  const byOffset = [...deciding].sort((a, b) => clockIn(a, now)!.offsetMinutes - clockIn(b, now)!.offsetMinutes)
  const middle = byOffset[Math.floor(byOffset.length / 2)]!
  return firstDay(now, (at) => isDay(clockIn(middle, at)!.hour)) ?? undefined
}

/** undefined: now is day; a Date: the first quarter hour that is; null: none within a day. */
function firstDay(now: Date, day: (at: Date) => boolean): Date | undefined | null {
  if (day(now)) return undefined
  const start = Math.ceil(now.getTime() / STEP_MS) * STEP_MS
  for (let at = start; at <= now.getTime() + LOOK_AHEAD_MS; at += STEP_MS) if (day(new Date(at))) return new Date(at)
  return null
}
