import { html, type Html } from './html'

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
