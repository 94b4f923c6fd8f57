import { html, type Html } from '../html'

/**
 * Charts drawn on the server (no script, no build, nothing inline for the CSP to refuse): the
 * shapes are SVG stretched to their box, the words are HTML, so they stay readable at any width.
 * Each chart carries a text summary for screen readers.
 */

const COLORS = ['#1f6feb', '#1a7f37', '#9a6700', '#b42318', '#8250df', '#0a7480', '#57606a', '#bc4c00', '#6e7781', '#cf222e', '#116329']

/** Horizontal bars, one per entry, largest first, each with its label and its number. */
export function barChart(title: string, entries: [string, number][]): Html {
  const rows = entries.filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1])
  if (rows.length === 0) return html`<p class="empty">No tasks yet.</p>`
  const max = Math.max(...rows.map(([, v]) => v))
  const summary = `${title}: ${rows.map(([label, value]) => `${label.replaceAll('_', ' ')} ${value.toLocaleString('en-US')}`).join(', ')}`
  return html`<div class="bars" role="img" aria-label="${summary}">
${rows.map(
  ([label, value], i) =>
    html`<div class="bar-row" aria-hidden="true"><span class="bar-label">${label.replaceAll('_', ' ')}</span><svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none"><rect width="${Math.max(1, (value / max) * 100).toFixed(2)}" height="10" rx="1" fill="${COLORS[i % COLORS.length]!}"></rect></svg><span class="bar-value">${value.toLocaleString('en-US')}</span></div>`,
)}
</div>`
}

/** Columns per hour for two series side by side (the last 24 hours), with an HTML axis and legend. */
export function hourlyChart(title: string, hours: { hour: Date; a: number; b: number }[], labels: [string, string]): Html {
  const max = Math.max(1, ...hours.flatMap((h) => [h.a, h.b]))
  const slot = 100 / hours.length
  const total = (key: 'a' | 'b') => hours.reduce((sum, h) => sum + h[key], 0).toLocaleString('en-US')
  const peak = hours.reduce((best, h) => (h.a + h.b > best.a + best.b ? h : best), hours[0]!)
  const summary = `${title}: ${labels[0]} ${total('a')}, ${labels[1]} ${total('b')} in the last 24 hours${max > 1 ? `; busiest hour ${peak.hour.toISOString().slice(11, 16)} UTC` : ''}`
  return html`<figure class="hourly" role="img" aria-label="${summary}">
<svg class="columns" viewBox="0 0 100 50" preserveAspectRatio="none" aria-hidden="true">
${hours.map((h, i) => {
  const ha = (h.a / max) * 50
  const hb = (h.b / max) * 50
  return html`<rect x="${(i * slot + slot * 0.08).toFixed(2)}" y="${(50 - ha).toFixed(2)}" width="${(slot * 0.42).toFixed(2)}" height="${ha.toFixed(2)}" fill="#1f6feb"></rect><rect x="${(i * slot + slot * 0.5).toFixed(2)}" y="${(50 - hb).toFixed(2)}" width="${(slot * 0.42).toFixed(2)}" height="${hb.toFixed(2)}" fill="#1a7f37"></rect>`
})}
</svg>
<div class="axis" aria-hidden="true">${[0, 6, 12, 18].map((i) => html`<span>${hours[i]?.hour.toISOString().slice(11, 16) ?? ''}</span>`)}<span>now</span></div>
<figcaption><span class="key a"></span>${labels[0]} (${total('a')}) <span class="key b"></span>${labels[1]} (${total('b')}) <span class="muted">· tallest column ${max.toLocaleString('en-US')}</span></figcaption>
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
