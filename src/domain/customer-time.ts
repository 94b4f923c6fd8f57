import { LOCALES } from './customer-labels'
import type { Language } from './tracking-page'
import { offsetMinutes } from './tracking-update'

/**
 * Times as the shop's customer reads them (the tracking page, the messages): in their language,
 * at the wall-clock time of the place an event happened when the carrier said where that was.
 */

/** A wall-clock time: the instant shifted by its UTC offset (none: UTC), formatted as if in UTC. */
export const wallClock = (iso: string, offset: string | null): Date => new Date(Date.parse(iso) + (offsetMinutes(offset) ?? 0) * 60_000)

// Made once per language and style: constructing a DateTimeFormat costs far more than formatting.
const FORMATS = new Map<string, Intl.DateTimeFormat>()
export type TimeStyle = Pick<Intl.DateTimeFormatOptions, 'dateStyle' | 'timeStyle'>

/** A date (a wallClock one, or an instant read in UTC) in the language's locale. */
export function formatTime(language: Language, date: Date, style: TimeStyle): string {
  const key = `${language} ${style.dateStyle ?? ''} ${style.timeStyle ?? ''}`
  let formatter = FORMATS.get(key)
  if (!formatter) FORMATS.set(key, (formatter = new Intl.DateTimeFormat(LOCALES[language], { ...style, timeZone: 'UTC' })))
  return formatter.format(date)
}
