import { emailProblem } from './email-address'
import { MUST, type FieldError } from './errors'
import type { Milestone } from './milestones'
import type { ProofOfDelivery } from './tracking-task'
import { localTimeOf } from './tracking-update'

/**
 * The public tracking page (GET /t/{token}): what a shop's customer sees of a parcel, built from
 * the task and its user's branding. Pure. The page and its JSON twin show exactly `TrackingPage`:
 * never the callback URL, webhooks, ids, the API user, street lines or postal codes, nor the
 * reference unless the shop allows it.
 */

export const LANGUAGES = ['en', 'de', 'fr', 'es'] as const
export type Language = (typeof LANGUAGES)[number]

/** An API user's branding of their tasks' pages. */
export interface TrackingPageBrand {
  displayName: string
  logoUrl: string | null
  /** #rrggbb */
  accentColor: string | null
  supportUrl: string | null
  supportEmail: string | null
  showReference: boolean
  defaultLanguage: Language
}

export const DEFAULT_BRAND: TrackingPageBrand = {
  displayName: '',
  logoUrl: null,
  accentColor: null,
  supportUrl: null,
  supportEmail: null,
  showReference: false,
  defaultLanguage: 'en',
}

/** The page's colour when the shop gives none (contrast 6.9:1 on white). */
export const DEFAULT_ACCENT = '#0b5cad'

const MAX_URL = 2000

/**
 * A shop's colour as the page uses it for text and lines on white: darkened until it reads at
 * 4.5:1 (WCAG AA), so that a pale brand colour never makes the page's links unreadable.
 */
export function readableAccent(hex: string): string {
  let [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number]
  const luminance = () =>
    [r, g, b]
      .map((c) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4))
      .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i]!, 0)
  while (1.05 / (luminance() + 0.05) < 4.5) [r, g, b] = [r, g, b].map((c) => Math.floor(c * 0.9)) as [number, number, number]
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`
}

/** What is wrong with a branding, in the interface's words. */
export function brandProblems(brand: TrackingPageBrand): FieldError[] {
  const problems: FieldError[] = []
  if (brand.displayName.length > 100) problems.push({ field: 'displayName', message: MUST.atMost(100) })
  for (const field of ['logoUrl', 'supportUrl'] as const) {
    const value = brand[field]
    if (value !== null && !isHttpsUrl(value)) problems.push({ field, message: `must be an absolute https URL of at most ${MAX_URL} characters` })
  }
  if (brand.accentColor !== null && !/^#[0-9a-fA-F]{6}$/.test(brand.accentColor))
    problems.push({ field: 'accentColor', message: 'must be a colour written #rrggbb' })
  // The support address is a message's Reply-To too: the same rule as every address.
  if (brand.supportEmail !== null && emailProblem(brand.supportEmail) !== undefined)
    problems.push({ field: 'supportEmail', message: 'must be an email address' })
  return problems
}

function isHttpsUrl(value: string): boolean {
  if (value.length > MAX_URL || /\s/.test(value)) return false
  try {
    const url = new URL(value)
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === ''
  } catch {
    return false
  }
}

/**
 * A header's weighted list (Accept, Accept-Language: `fr-CH, fr;q=0.9, *;q=0.1`): its values,
 * lower-cased, with their q (1 when unsaid), the highest first, ties in the header's order; q=0
 * (refused) left out.
 */
export function byQuality(header: string | undefined): { value: string; q: number }[] {
  return (header ?? '')
    .split(',')
    .map((part, i) => {
      const [value, ...params] = part.split(';')
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
      return { value: value!.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), i }
    })
    .filter((r) => r.value !== '' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map(({ value, q }) => ({ value, q }))
}

/** The page's language: `?lang=`, else the best of Accept-Language, else the shop's default. */
export function chooseLanguage(query: string | undefined, acceptLanguage: string | undefined, fallback: Language): Language {
  const known = (tag: string) => LANGUAGES.find((l) => l === tag.trim().toLowerCase().split('-')[0])
  const asked = query === undefined ? undefined : known(query)
  if (asked) return asked
  for (const { value } of byQuality(acceptLanguage)) {
    const language = known(value)
    if (language) return language
  }
  return fallback
}

/** The steps of the progress line, in order. */
export const STEPS = ['info_received', 'in_transit', 'out_for_delivery', 'delivered'] as const
export type Step = (typeof STEPS)[number]

/** How far along the line each milestone is (the steps done), and whether it is a trouble to show as such. */
const PROGRESS: Record<Milestone, { reached: number; trouble: boolean }> = {
  pending: { reached: 0, trouble: false },
  info_received: { reached: 1, trouble: false },
  in_transit: { reached: 2, trouble: false },
  exception: { reached: 2, trouble: true },
  out_for_delivery: { reached: 3, trouble: false },
  failed_attempt: { reached: 3, trouble: true },
  available_for_pickup: { reached: 3, trouble: false },
  delivered: { reached: 4, trouble: false },
  returned: { reached: 2, trouble: true },
  cancelled: { reached: 1, trouble: true },
  expired: { reached: 2, trouble: true },
}

export interface Place {
  city: string
  state: string
  country: string
}

/** What the page shows: the JSON twin, member for member. */
export interface TrackingPage {
  language: Language
  /** accentColor: the shop's, darkened where it would not read on white (readableAccent). */
  shop: { name: string; logoUrl: string | null; accentColor: string; supportUrl: string | null; supportEmail: string | null }
  carrier: { code: string; name: string; trackingNumber: string; trackingUrl: string }
  /** The shop's order reference, only when the shop shows it. */
  reference: string | null
  milestone: Milestone
  progress: { step: Step; state: 'done' | 'current' | 'todo' }[]
  /** Whether the milestone is a trouble (an exception, a failed attempt, a return, …), shown as such. */
  trouble: boolean
  /** The carrier's ETA, else the predicted window; null when neither. */
  expected: { source: 'carrier'; at: string } | { source: 'prediction'; earliest: string; latest: string } | null
  /** When a delivered parcel was delivered (its first delivered event); null otherwise. */
  deliveredAt: string | null
  /** Whether the parcel's journey has ended (delivered, returned, cancelled, expired): no expected delivery is shown. */
  ended: boolean
  proofOfDelivery: ProofOfDelivery | null
  origin: Place | null
  destination: Place | null
  /** Newest first; `localTime` the event's wall-clock time where it happened, when the carrier said. */
  events: { at: string; localTime: string | null; description: string; place: Place | null; milestone: Milestone | null }[]
  updatedAt: string
}

/** What the page is made from: the task's row as the repository reads it. */
export interface TrackingPageSource {
  carrierCode: string
  trackingNumber: string
  externalReferenceNo: string
  milestone: Milestone
  estimatedDeliveryAt: Date | null
  prediction: { earliest: string; latest: string } | null
  originAddress: { city?: string; state?: string; country?: string }
  destinationAddress: { city?: string; state?: string; country?: string }
  proofOfDelivery: ProofOfDelivery | null
  updatedAt: Date
  events: { eventTime: Date; utcOffset: string | null; description: string; city: string; state: string; country: string; milestone: Milestone | null }[]
}

const placeOf = (a: { city?: string; state?: string; country?: string }): Place | null =>
  a.city || a.state || a.country ? { city: a.city ?? '', state: a.state ?? '', country: a.country ?? '' } : null

export function trackingPageOf(
  source: TrackingPageSource,
  brand: TrackingPageBrand,
  carrier: { name: string; trackingUrl: string },
  language: Language,
): TrackingPage {
  const { reached, trouble } = PROGRESS[source.milestone]
  const terminal = source.milestone === 'delivered' || source.milestone === 'returned' || source.milestone === 'cancelled' || source.milestone === 'expired'
  return {
    language,
    shop: {
      name: brand.displayName,
      logoUrl: brand.logoUrl,
      accentColor: readableAccent(brand.accentColor ?? DEFAULT_ACCENT),
      supportUrl: brand.supportUrl,
      supportEmail: brand.supportEmail,
    },
    carrier: { code: source.carrierCode, name: carrier.name, trackingNumber: source.trackingNumber, trackingUrl: carrier.trackingUrl },
    reference: brand.showReference && source.externalReferenceNo !== '' ? source.externalReferenceNo : null,
    milestone: source.milestone,
    progress: STEPS.map((step, i) => ({ step, state: i < reached - 1 || reached === STEPS.length ? 'done' : i === reached - 1 ? 'current' : 'todo' })),
    trouble,
    expected: terminal
      ? null
      : source.estimatedDeliveryAt
        ? { source: 'carrier', at: source.estimatedDeliveryAt.toISOString() }
        : source.prediction
          ? { source: 'prediction', earliest: source.prediction.earliest, latest: source.prediction.latest }
          : null,
    deliveredAt:
      source.milestone === 'delivered'
        ? (source.events
            .filter((e) => e.milestone === 'delivered')
            .map((e) => e.eventTime)
            .sort((a, b) => a.getTime() - b.getTime())[0]
            ?.toISOString() ?? null)
        : null,
    ended: terminal,
    proofOfDelivery: source.milestone === 'delivered' ? source.proofOfDelivery : null,
    origin: placeOf(source.originAddress),
    destination: placeOf(source.destinationAddress),
    events: [...source.events]
      .sort((a, b) => b.eventTime.getTime() - a.eventTime.getTime())
      .map((e) => ({
        at: e.eventTime.toISOString(),
        localTime: localTimeOf(e.eventTime, e.utcOffset),
        description: e.description,
        place: placeOf(e),
        milestone: e.milestone,
      })),
    updatedAt: source.updatedAt.toISOString(),
  }
}
