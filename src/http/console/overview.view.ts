import type { ConsoleCarrier, Overview } from '../../services/console.service'
import { barChart, carrierColor, hourlyChart, milestoneColor, SERIES_COLORS, statusColor } from './charts'
import { html, type Html } from '../../domain/html'
import { durationOf, when } from './layout'

export function overviewView(o: Overview, carriers: ConsoleCarrier[]): Html {
  const troubled = carriers.filter((c) => c.mode === 'unavailable' || (c.circuit && c.circuit.state !== 'closed'))
  const total = Object.values(o.byStatus).reduce((a, b) => a + b, 0)
  const due = o.backlog.reduce((sum, b) => sum + b.due, 0)
  const deliveries = o.lastDay.reduce((sum, h) => sum + h.deliveries, 0)
  const failed = o.lastDay.reduce((sum, h) => sum + h.failed, 0)
  const retrying = o.lastDay.reduce((sum, h) => sum + h.retrying, 0)
  return html`
<div class="cards">
  <section class="card" aria-labelledby="c-tasks"><h2 id="c-tasks">Tasks</h2><div class="stat">${total.toLocaleString('en-US')}</div><p class="muted">across every API user</p></section>
  <section class="card" aria-labelledby="c-rate"><h2 id="c-rate">Webhooks delivered (24 h)</h2><div class="stat">${o.successRate === null ? '—' : `${(o.successRate * 100).toFixed(1)} %`}</div><p class="muted">${deliveries.toLocaleString('en-US')} ${deliveries === 1 ? 'delivery' : 'deliveries'}, ${retrying.toLocaleString('en-US')} waiting for a retry, ${failed.toLocaleString('en-US')} failed for good${
    retrying + failed > 0 ? html` (<a href="/console/deliveries">see them</a>)` : ''
  }</p></section>
  <section class="card" aria-labelledby="c-carriers"><h2 id="c-carriers">Carriers</h2><div class="stat">${troubled.length === 0 ? 'All well' : `${troubled.length} in trouble`}</div><p class="muted">${
    troubled.length === 0
      ? carriers.map((c) => `${c.name} ${c.mode}`).join(', ')
      : troubled.map(
          (c) =>
            html`${c.name}: ${c.mode === 'unavailable' ? 'unavailable (no credentials)' : `circuit ${c.circuit!.state.replace('_', ' ')}${c.circuit!.lastError ? `, ${c.circuit!.lastError}` : ''}`}; `,
        )
  } <a href="/console/carriers">details</a></p></section>
  <section class="card" aria-labelledby="c-backlog"><h2 id="c-backlog">Refresh backlog</h2><div class="stat">${due.toLocaleString('en-US')}</div><p class="muted">tasks due now${o.backlog
    .filter((b) => b.due > 0)
    .map((b) => html`; ${b.carrierCode} ${b.due.toLocaleString('en-US')}, the oldest waiting ${durationOf(b.oldestSeconds ?? 0)}`)}</p></section>
</div>
<div class="cards">
  <section class="card" aria-labelledby="c-status"><h2 id="c-status">Tasks by status</h2>${barChart('Tasks by status', Object.entries(o.byStatus), {
    color: statusColor,
    href: (status) => `/console/tasks?status=${encodeURIComponent(status)}`,
  })}</section>
  <section class="card" aria-labelledby="c-milestone"><h2 id="c-milestone">Tasks by milestone</h2>${barChart(
    'Tasks by milestone',
    Object.entries(o.byMilestone),
    {
      color: milestoneColor,
      href: (milestone) => `/console/tasks?milestone=${encodeURIComponent(milestone)}`,
    },
  )}</section>
  <section class="card" aria-labelledby="c-carrier"><h2 id="c-carrier">Tasks by carrier</h2>${barChart('Tasks by carrier', Object.entries(o.byCarrier), {
    color: carrierColor(carriers.map((c) => c.carrierCode)),
    href: (carrier) => `/console/tasks?carrier=${encodeURIComponent(carrier)}`,
  })}</section>
</div>
<section class="card" aria-labelledby="c-day"><h2 id="c-day">The last 24 hours, by hour (UTC)</h2>
${hourlyChart(
  'Status changes, webhook deliveries and failed deliveries',
  o.lastDay.map((h) => ({ hour: h.hour, values: [h.status_changes, h.deliveries, h.retrying + h.failed] })),
  [
    { label: 'status changes', color: SERIES_COLORS.statusChanges },
    { label: 'webhook deliveries', color: SERIES_COLORS.deliveries },
    { label: 'failed deliveries (retrying or failed for good)', color: SERIES_COLORS.failures },
  ],
)}
</section>
<p class="muted">Counts as of ${when(o.takenAt)}; they are refreshed at most every 30 s. </p>`
}
