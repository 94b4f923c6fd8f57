/** A local time with its offset, as carriers write it: 2024-08-20T12:41:57-04:00. */
export function withOffset(time: Date, offsetMinutes: number): string {
  return `${new Date(time.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19)}${offsetText(offsetMinutes)}`
}

/** An instant's local date and time at an offset, as UPS writes them: YYYYMMDD and HHMMSS. */
export function compactLocal(time: Date, offsetMinutes: number): { date: string; time: string } {
  const iso = new Date(time.getTime() + offsetMinutes * 60_000).toISOString()
  return { date: iso.slice(0, 10).replaceAll('-', ''), time: iso.slice(11, 19).replaceAll(':', '') }
}

/** An offset as carriers write it: -05:00, +08:00. */
export function offsetText(offsetMinutes: number): string {
  const abs = Math.abs(offsetMinutes)
  return `${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}
