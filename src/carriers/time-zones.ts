/**
 * Time zones for carriers that write local times without an offset (DHL), with a zone's name
 * (Canada Post's EST), or at one country's clock wherever the scan was (La Poste, GLS): the
 * offset of an IANA zone at an instant, and a wall-clock time in a zone as a UTC instant.
 */

// A formatter is costly to make (tens of microseconds) and cheap to use: one per zone, kept.
const formatters = new Map<string, Intl.DateTimeFormat>()

/** The offset of `zone` at the UTC instant `at`, in minutes. */
export function zoneOffsetMinutes(zone: string, at: number | Date): number {
  let formatter = formatters.get(zone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    formatters.set(zone, formatter)
  }
  const name = formatter.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? ''
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name)
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0
}

/** A wall-clock time ("2021-05-05T15:42:00") in `zone` as a UTC instant. */
export function localToUtc(local: string, zone: string): Date {
  const wall = Date.parse(`${local}Z`)
  let at = wall - zoneOffsetMinutes(zone, wall) * 60_000
  // Near a change of offset the first guess may sit on the other side of it.
  at = wall - zoneOffsetMinutes(zone, at) * 60_000
  return new Date(at)
}
