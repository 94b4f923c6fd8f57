/**
 * Reading a carrier's answers (the carrier client kit): which asked number an element answers,
 * and a history the carrier lists newest first, put in time order.
 */

/** A tracking number as carriers write it back, to match an answer to the number asked: no spaces, upper case. */
export function numberKey(number: string): string {
  return number.replace(/\s+/g, '').toUpperCase()
}

/**
 * Items a carrier lists newest first, oldest first by `timeOf`; items at the same time keep the
 * carrier's order between them (reversed, then a stable sort), so the newest is the last.
 */
export function oldestFirst<T>(newestFirst: readonly T[], timeOf: (item: T) => number): T[] {
  return [...newestFirst].reverse().sort((a, b) => timeOf(a) - timeOf(b))
}
