import { label, LOCALES, MILESTONE_LABELS } from './customer-labels'
import type { Language, Place, TrackingPage } from './tracking-page'
import { offsetMinutes } from './tracking-update'

/**
 * Times and places as the shop's customer reads them (the tracking page, the messages): in their
 * language, at the wall-clock time of the place an event happened when the carrier said where
 * that was.
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

/** A place: its city, state and country, the empty ones left out ("" for none). */
export const placeText = (place: Place | null): string => (place ? [place.city, place.state, place.country].filter((p) => p !== '').join(', ') : '')

/** What an event says: the carrier's text, else its milestone's name. */
export const eventText = (language: Language, event: TrackingPage['events'][number]): string =>
  event.description || (event.milestone ? MILESTONE_LABELS[language][event.milestone] : '')

/** When an event happened: at its place's time when the carrier said, else in UTC. */
export function eventTimeText(language: Language, event: TrackingPage['events'][number]): string {
  return event.localTime
    ? `${formatTime(language, wallClock(event.at, event.localTime.slice(19)), { dateStyle: 'medium', timeStyle: 'short' })} (${label(language, 'localTime')})`
    : `${formatTime(language, new Date(event.at), { dateStyle: 'medium', timeStyle: 'short' })} UTC`
}

/**
 * The delivery's date as one line: when it was delivered, else the carrier's day or the predicted
 * window; "" when the journey ended otherwise or nothing is expected yet. Dates as the parcel's
 * newest scan's place keeps time; UTC when no scan said.
 */
export function expectedText(page: TrackingPage): string {
  const { language } = page
  const offset = page.events.find((e) => e.localTime !== null)?.localTime?.slice(19) ?? null
  const day = (iso: string) => formatTime(language, wallClock(iso, offset), { dateStyle: 'full' })
  const time = (iso: string) => formatTime(language, wallClock(iso, offset), { timeStyle: 'short' })
  if (page.deliveredAt !== null) return `${day(page.deliveredAt)}, ${time(page.deliveredAt)}`
  if (page.ended || page.expected === null) return ''
  if (page.expected.source === 'carrier') return day(page.expected.at)
  const { earliest, latest } = page.expected
  return day(earliest) === day(latest)
    ? label(language, 'expectedWindow', { earliest: `${day(earliest)}, ${time(earliest)}`, latest: time(latest) })
    : label(language, 'expectedWindow', { earliest: day(earliest), latest: day(latest) })
}
