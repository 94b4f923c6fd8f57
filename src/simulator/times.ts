/** A local time with its offset, as carriers write it: 2024-08-20T12:41:57-04:00. */
export function withOffset(time: Date, offsetMinutes: number): string {
  const local = new Date(time.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19)
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}
