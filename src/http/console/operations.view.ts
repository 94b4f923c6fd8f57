import { SETTING_SPECS, type Settings } from '../../domain/settings'
import type { CarrierPacing } from '../../services/carrier-catalog.service'
import type { ConsoleCarrier, ConsoleService } from '../../services/console.service'
import type { HostView } from '../../services/webhook-delivery.service'
import { html, type Html } from '../html'
import { actionButton, badge, when, type PageContext } from './layout'

type FailingDeliveryRow = Awaited<ReturnType<ConsoleService['failingDeliveries']>>[number]

export function deliveriesView(rows: FailingDeliveryRow[], hosts: HostView[], context: PageContext): Html {
  return html`${failingTable(rows, context)}
<h2>Receiving hosts</h2>
${
  hosts.length === 0
    ? html`<p class="empty">This process has sent no webhook yet (or does not send them: ROLE=api).</p>`
    : html`<p class="muted">Attempts each host may get at once in this process: it grows while the host answers 2xx quickly and shrinks on timeouts, 5xx, 429 and rising latency (docs/webhooks.md).</p>
<div class="table-wrap"><table><thead><tr><th scope="col">Host</th><th scope="col">Limit</th><th scope="col">Sending now</th><th scope="col">Paused</th></tr></thead><tbody>
${hosts.map((h) => html`<tr><td>${h.host}</td><td>${h.limit}</td><td>${h.sending}</td><td>${h.pausedUntil ? html`until ${when(h.pausedUntil)}` : '—'}</td></tr>`)}
</tbody></table></div>`
}`
}

function failingTable(rows: FailingDeliveryRow[], context: PageContext): Html {
  if (rows.length === 0) return html`<p class="empty">No delivery is failing: none waits for a retry, and none failed for good in the last 24 hours.</p>`
  return html`<p class="muted">Waiting for a retry after a failed attempt, or failed for good in the last 24 hours; newest first. A redelivery starts a new cycle of the retry schedule with the same webhook-id.</p>
<div class="table-wrap"><table><thead><tr><th scope="col">Webhook</th><th scope="col">API user</th><th scope="col">Task</th><th scope="col">State</th><th scope="col">Last answer</th><th scope="col" class="hide-narrow">Created</th><th scope="col"><span class="skip">Action</span></th></tr></thead><tbody>
${rows.map(
  (d) =>
    html`<tr><td>${d.event_type}<br><span class="muted">${d.webhook_id}</span><br><span class="url">${d.target_url}</span></td><td><a href="/console/users/${d.user_id}">${d.user_name}</a></td><td><a href="/console/tasks/${d.task_id}">Task ${d.task_id}</a></td><td>${badge(d.status)} ${d.attempt_count} attempt${d.attempt_count === 1 ? '' : 's'}</td><td>${
      d.last_error || (d.last_status_code ? `HTTP ${d.last_status_code}` : '—')
    }</td><td class="hide-narrow">${when(d.created_at)}</td><td>${actionButton(
      `/console/tasks/${d.task_id}/webhooks/${d.webhook_id}/redeliver`,
      'Redeliver',
      context,
      {
        kind: 'secondary',
        fields: { back: 'deliveries' },
      },
    )}</td></tr>`,
)}
</tbody></table></div>`
}

/** A duration as an operator reads it: 30 s, 45 min, 2 h, 1 d 6 h. */
function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`
  return `${Math.floor(seconds / 86_400)} d ${Math.round((seconds % 86_400) / 3600)} h`
}

export function carriersView(carriers: (ConsoleCarrier & CarrierPacing)[]): Html {
  return html`<div class="cards">
${carriers.map(
  (
    c,
  ) => html`<section class="card" aria-labelledby="carrier-${c.carrierCode}"><h2 id="carrier-${c.carrierCode}">${c.name} <span class="muted">${c.carrierCode}</span></h2><dl class="facts">
  <dt>Runs on</dt><dd>${badge(c.mode)}</dd>
  <dt>Circuit</dt><dd>${c.circuit ? html`${badge(c.circuit.state)}${c.circuit.retryAt ? html` until ${when(c.circuit.retryAt)}` : ''}` : html`<span class="muted">not refreshed by this process</span>`}</dd>
  <dt>Last error</dt><dd>${c.circuit?.lastError ?? '—'}</dd>
  <dt>Failures in a row</dt><dd>${c.circuit?.failures ?? '—'}</dd>
  <dt>Request budget</dt><dd>${c.requestBudget}</dd>
  <dt>Active tasks</dt><dd>${c.activeTasks}</dd>
  <dt>Each fetched every</dt><dd>${duration(c.effectiveIntervalSeconds)}</dd>
  <dt>Numbers a request</dt><dd>${c.numbersPerRequest}</dd>
  <dt>Formats</dt><dd>${c.formats.map((f) => f.name).join('; ')}</dd>
</dl></section>`,
)}
</div>
<p class="muted">"simulator": no credentials, so the built-in carrier simulator answers (docs/simulator.md); "unavailable": no credentials in production. The circuit opens when a carrier's requests keep failing: none of its tasks is claimed until one request probes it again (docs/carriers.md). Budgets are per worker process (<code>&lt;CARRIER&gt;_REQUEST_BUDGET</code>: per second, minute, hour or day); when a carrier's active tasks need more requests than its budget, each is fetched less often, never more than the budget pays for.</p>`
}

export function settingsView(settings: Settings, context: PageContext): Html {
  return html`<form method="post" action="/console/settings" class="card">
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  ${SETTING_SPECS.map(([name, s]) => {
    const help = html`<br><span id="${name}-help" class="muted">${s.description} (${s.kind === 'integer' ? `${s.min} to ${s.max}` : s.values.join(' or ')}, default ${s.default})</span>`
    return s.kind === 'integer'
      ? html`<p><label for="${name}">${name}</label>
    <input id="${name}" name="${name}" type="number" inputmode="numeric" min="${s.min}" max="${s.max}" step="1" value="${settings[name]}" aria-describedby="${name}-help" required>${help}</p>`
      : html`<p><label for="${name}">${name}</label>
    <select id="${name}" name="${name}" aria-describedby="${name}-help">${s.values.map((v) => html`<option${v === settings[name] ? html` selected` : ''}>${v}</option>`)}</select>${help}</p>`
  })}
  <button type="submit">Save settings</button>
</form>`
}
