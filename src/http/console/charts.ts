import { MILESTONES, type Milestone } from '../../domain/milestones'
import type { StandardStatus } from '../../domain/statuses'
import { html, type Html } from '../../domain/html'

/**
 * Charts drawn on the server (no script, no build, nothing inline for the CSP to refuse): the
 * shapes are SVG stretched to their box, the words are HTML, so they stay readable at any width.
 * Each chart carries a text summary for screen readers.
 */

/**
 * Colours by meaning, the same on every chart: a status and the milestones within it share one
 * (delivered green, exception red, in transit blue …), as do the series of the 24 hours (deliveries
 * green, failures red). Every colour is at least 3:1 against the white card.
 */
const STATUS_COLORS: Record<StandardStatus, string> = {
  pending: '#8250df',
  in_transit: '#1f6feb',
  exception: '#cf222e',
  delivered: '#1a7f37',
  returned: '#bc4c00',
  cancelled: '#57606a',
  expired: '#6e7781',
}
export const SERIES_COLORS = { statusChanges: STATUS_COLORS.in_transit, deliveries: STATUS_COLORS.delivered, failures: STATUS_COLORS.exception }
const CARRIER_PALETTE = ['#0a7480', '#9a6700', '#6e40c9', '#0b5cad', '#953800', '#116329', '#57606a']

export const statusColor = (status: string) => STATUS_COLORS[status as StandardStatus] ?? '#57606a'
export const milestoneColor = (milestone: string) => statusColor(MILESTONES[milestone as Milestone] ?? milestone)
/** Each carrier's colour, by its place among the carriers (the registry's order), so that it does not move with the counts. */
export const carrierColor = (codes: readonly string[]) => (code: string) => CARRIER_PALETTE[Math.max(0, codes.indexOf(code)) % CARRIER_PALETTE.length]!

/**
 * Horizontal bars, one per entry, largest first, each a link to what it counts (its label and
 * number are the link's words; the bar is drawing only).
 */
export function barChart(title: string, entries: [string, number][], bar: { color: (label: string) => string; href: (label: string) => string }): Html {
  const rows = entries.filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1])
  if (rows.length === 0) return html`<p class="empty">No tasks yet.</p>`
  const max = Math.max(...rows.map(([, v]) => v))
  return html`<ul class="bars" aria-label="${title}">
${rows.map(
  ([label, value]) =>
    html`<li><a class="bar-row" href="${bar.href(label)}"><span class="bar-label">${label.replaceAll('_', ' ')}</span><svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true"><rect width="${Math.max(1, (value / max) * 100).toFixed(2)}" height="10" rx="1" fill="${bar.color(label)}"></rect></svg><span class="bar-value">${value.toLocaleString('en-US')}</span></a></li>`,
)}
</ul>`
}

/** A round number at or above `max` for a chart's scale (1, 2, 5 × 10^n). */
export function niceCeiling(max: number): number {
  if (max <= 1) return 1
  const power = 10 ** Math.floor(Math.log10(max))
  return [1, 2, 5, 10].map((m) => m * power).find((n) => n >= max) ?? 10 * power
}

/** Columns per hour for some series side by side (the last 24 hours), on a scale from 0, with an HTML axis and legend. */
export function hourlyChart(title: string, hours: { hour: Date; values: number[] }[], series: { label: string; color: string }[]): Html {
  const top = niceCeiling(Math.max(1, ...hours.flatMap((h) => h.values)))
  const slot = 100 / Math.max(1, hours.length)
  const width = (slot * 0.84) / series.length
  const total = (i: number) => hours.reduce((sum, h) => sum + (h.values[i] ?? 0), 0).toLocaleString('en-US')
  const summary = `${title}, the last 24 hours: ${series.map((s, i) => `${s.label} ${total(i)}`).join(', ')}`
  return html`<figure class="hourly" role="img" aria-label="${summary}">
<div class="rate-plot" aria-hidden="true"><span class="scale-y"><span>${top.toLocaleString('en-US')}</span><span>${(top / 2).toLocaleString('en-US')}</span><span>0</span></span><svg class="columns" viewBox="0 0 100 50" preserveAspectRatio="none">
<line x1="0" y1="25" x2="100" y2="25" stroke="#d0d7de" stroke-width="0.3"></line>
${hours.map((h, i) =>
  series.map((s, k) => {
    const height = ((h.values[k] ?? 0) / top) * 50
    return html`<rect x="${(i * slot + slot * 0.08 + k * width).toFixed(2)}" y="${(50 - height).toFixed(2)}" width="${width.toFixed(2)}" height="${height.toFixed(2)}" fill="${s.color}"></rect>`
  }),
)}
</svg></div>
<div class="axis" aria-hidden="true">${[0, 6, 12, 18].map((i) => html`<span>${hours[i]?.hour.toISOString().slice(11, 16) ?? ''}</span>`)}<span>now</span></div>
<figcaption>${series.map((s, i) => html`<svg class="key" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" fill="${s.color}"></rect></svg>${s.label} (${total(i)}) `)}</figcaption>
</figure>`
}

/** Hours as people read a transit time: hours up to three days, days after. */
export function duration(hours: number): string {
  return hours < 72 ? `${Math.round(hours)} h` : `${(hours / 24).toFixed(1)} d`
}

/**
 * Transit-time ranges, one row per lane: a bar from the 10th to the 90th percentile with the
 * median marked, on a common scale from 0 to the longest 90th percentile, the numbers in words.
 */
export function rangeChart(title: string, rows: { label: string; p10: number; median: number; p90: number; deliveries: number }[]): Html {
  if (rows.length === 0) return html`<p class="empty">No delivery learned from yet.</p>`
  const max = Math.max(...rows.map((r) => r.p90))
  const x = (hours: number) => ((hours / max) * 100).toFixed(2)
  const summary = `${title}: ${rows.map((r) => `${r.label}, median ${duration(r.median)}, 80 % between ${duration(r.p10)} and ${duration(r.p90)}, ${r.deliveries} deliveries`).join('; ')}`
  return html`<div class="ranges" role="img" aria-label="${summary}">
${rows.map(
  (r) =>
    html`<div class="range-row" aria-hidden="true"><span class="bar-label" title="${r.label}">${r.label}</span><svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none"><rect x="${x(r.p10)}" width="${Math.max(0.5, ((r.p90 - r.p10) / max) * 100).toFixed(2)}" y="2" height="6" fill="#9ec5fe"></rect><rect x="${x(r.median)}" width="0.8" height="10" fill="#0b3d91"></rect></svg><span class="bar-value">${duration(r.median)} <span class="muted">(${duration(r.p10)}–${duration(r.p90)}) · ${r.deliveries.toLocaleString('en-US')}</span></span></div>`,
)}
<div class="range-row range-axis" aria-hidden="true"><span></span><span class="scale"><span>0</span><span>${duration(max / 2)}</span><span>${duration(max)}</span></span><span></span></div>
</div>`
}

/** A rate (0-1, or null for no data) per period as columns on a 0-100 % scale, with the first and last period named. */
export function rateColumns(title: string, periods: { label: string; rate: number | null }[]): Html {
  const slot = 100 / periods.length
  const known = periods.filter((p) => p.rate !== null)
  const summary = `${title}: ${known.length === 0 ? 'no data' : known.map((p) => `${p.label} ${Math.round(p.rate! * 100)} %`).join(', ')}`
  return html`<figure class="rates" role="img" aria-label="${summary}">
<div class="rate-plot" aria-hidden="true"><span class="scale-y"><span>100 %</span><span>50 %</span><span>0 %</span></span><svg class="columns" viewBox="0 0 100 50" preserveAspectRatio="none">
<line x1="0" y1="25" x2="100" y2="25" stroke="#d0d7de" stroke-width="0.3"></line>
${periods.map((p, i) =>
  p.rate === null
    ? ''
    : html`<rect x="${(i * slot + slot * 0.15).toFixed(2)}" y="${(50 - p.rate * 50).toFixed(2)}" width="${(slot * 0.7).toFixed(2)}" height="${(p.rate * 50).toFixed(2)}" fill="#1a7f37"></rect>`,
)}
</svg></div>
<div class="axis" aria-hidden="true"><span>${periods[0]?.label ?? ''}</span><span>${periods[periods.length - 1]?.label ?? ''}</span></div>
<figcaption>${title}${known.length < periods.length ? html` <span class="muted">· no column: no delivery with an ETA that week</span>` : ''}</figcaption>
</figure>`
}
