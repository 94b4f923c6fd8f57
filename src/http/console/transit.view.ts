import type { TransitOverview } from '../../services/transit.service'
import { rangeChart, rateColumns } from './charts'
import { MIN_LANE_DELIVERIES } from '../../domain/transit-times'
import { html, type Html } from '../../domain/html'

const where = (country: string, state: string) => (country === '*' ? '' : state && state !== '*' ? `${country}-${state}` : country || '?')

/** The transit times the predictions rest on, over every user's deliveries, and each carrier's on-time rate per week. */
export function transitView(o: TransitOverview): Html {
  // A lane under the threshold carries no prediction: left out of the pictures.
  const used = o.lanes.filter((l) => l.deliveries >= MIN_LANE_DELIVERIES)
  const carriers = used.filter((l) => l.originCountry === '*')
  const lanes = used.filter((l) => l.originCountry !== '*')
  const rows = (list: typeof o.lanes, label: (l: (typeof o.lanes)[number]) => string) =>
    list.map((l) => ({ label: label(l), p10: l.p10Hours, median: l.medianHours, p90: l.p90Hours, deliveries: l.deliveries }))
  const codes = [...new Set(o.onTime.filter((w) => w.withEta > 0).map((w) => w.carrierCode))]
  return html`<p class="muted">Transit time runs from the first scan to the delivery; each bar spans the 10th to the 90th percentile (where four deliveries in five fall), the dark mark is the median, which a prediction adds to a task's first scan; lanes with fewer than ${MIN_LANE_DELIVERIES} deliveries carry no prediction and are left out. Over every user's deliveries; with <code>predictionSharing</code> set to <code>own</code>, each user's predictions rest on their own (docs/api.md, "Predicted delivery").</p>
<section class="card"><h2>By carrier</h2>${rangeChart(
    'Transit time by carrier',
    rows(carriers, (l) => l.carrierCode),
  )}</section>
<section class="card"><h2>Busiest lanes</h2>${rangeChart(
    'Transit time of the busiest lanes',
    rows(lanes, (l) => `${l.carrierCode} ${where(l.originCountry, l.originState)} → ${where(l.destinationCountry, l.destinationState)}`),
  )}</section>
<section class="card"><h2>On time, by week</h2>
<p class="muted">Of the deliveries with a carrier's ETA, the share delivered by the first ETA the carrier gave, per week of delivery (weeks from Monday, UTC).</p>
${
  codes.length === 0
    ? html`<p class="empty">No delivery with an ETA in the last ${o.weeks.length} weeks.</p>`
    : html`<div class="cards">${codes.map((code) =>
        rateColumns(
          `${code}: on time, ${o.weeks[0]} to ${o.weeks[o.weeks.length - 1]}`,
          o.weeks.map((week) => {
            const w = o.onTime.find((x) => x.carrierCode === code && x.week === week)
            return { label: week.slice(5), rate: w && w.withEta > 0 ? w.onTime / w.withEta : null }
          }),
        ),
      )}</div>`
}
</section>`
}
