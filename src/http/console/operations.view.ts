import { SETTING_SPECS, type Settings } from '../../domain/settings'
import type { CarrierPacing } from '../../services/carrier-catalog.service'
import type { ConsoleCarrier, ConsoleService } from '../../services/console.service'
import type { HostView } from '../../services/outbox.service'
import { html, type Html } from '../../domain/html'
import { may } from '../../domain/operators'
import { actionButton, badge, durationOf, when, type PageContext } from './layout'
import type { ReplayForm } from './replay-form'
import { dataTable } from './table'

type FailingDeliveryRow = Awaited<ReturnType<ConsoleService['failingDeliveries']>>[number]

export function deliveriesView(rows: FailingDeliveryRow[], hosts: HostView[], context: PageContext, replay: ReplayForm): Html {
  return html`${replayForm(replay, context)}
<h2>Failing now</h2>
${failingTable(rows, context)}
<h2>Receiving hosts</h2>
${
  hosts.length === 0
    ? html`<p class="empty">This process has sent no webhook yet (or does not send them: ROLE=api).</p>`
    : html`<p class="muted">Attempts each host may get at once in this process: it grows while the host answers 2xx quickly and shrinks on timeouts, 5xx, 429 and rising latency (docs/webhooks.md).</p>
${dataTable(
  'Receiving hosts',
  [
    { label: 'Host', cell: (h) => h.host, className: 'url' },
    { label: 'Limit', cell: (h) => h.limit },
    { label: 'Sending now', cell: (h) => h.sending },
    { label: 'Paused', cell: (h) => (h.pausedUntil ? html`until ${when(h.pausedUntil)}` : '—') },
  ],
  hosts,
)}`
}`
}

function replayForm(form: ReplayForm, context: PageContext): Html {
  if (!may(context.role, 'webhook.replay')) return html``
  return html`<details class="card replay"${form.userId || form.endpointId ? html` open` : ''}><summary>Replay failed deliveries in bulk</summary>
<form method="post" action="/console/deliveries/replay" data-confirm="Queue the failed deliveries of this window again?">
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  <p class="muted">Queues again every delivery that failed for good and was created in the window (UTC), of one API user, of one endpoint, or of every user: each starts a new cycle of the retry schedule with its webhook-id. At most 1,000 at a time per user; send again for more (a delivery queued again is no longer failed, so none is sent twice).</p>
  <div class="row">
    <div><label for="createdFrom">Created from (UTC)</label><input id="createdFrom" name="createdFrom" type="datetime-local" value="${form.createdFrom}" required></div>
    <div><label for="createdTo">Created before (UTC)</label><input id="createdTo" name="createdTo" type="datetime-local" value="${form.createdTo}" required></div>
    <div><label for="replayUser">API user id <span class="muted">(optional)</span></label><input id="replayUser" name="userId" inputmode="numeric" pattern="[0-9]*" maxlength="15" value="${form.userId}"></div>
    <div><label for="replayEndpoint">Endpoint id <span class="muted">(optional)</span></label><input id="replayEndpoint" name="endpointId" inputmode="numeric" pattern="[0-9]*" maxlength="15" value="${form.endpointId}"></div>
  </div>
  <button type="submit">Replay failed deliveries</button>
</form></details>`
}

function failingTable(rows: FailingDeliveryRow[], context: PageContext): Html {
  if (rows.length === 0) return html`<p class="empty">No delivery is failing: none waits for a retry, and none failed for good in the last 24 hours.</p>`
  return html`<p class="muted">Waiting for a retry after a failed attempt, or failed for good in the last 24 hours; newest first. A redelivery starts a new cycle of the retry schedule with the same webhook-id.</p>
${dataTable(
  'Failing deliveries',
  [
    { label: 'Webhook', cell: (d) => html`${d.event_type}<br><span class="muted">${d.webhook_id}</span>`, className: 'url' },
    { label: 'Sent to', cell: (d) => d.target_url || '—', className: 'url' },
    { label: 'API user', cell: (d) => html`<a href="/console/users/${d.user_id}">${d.user_name}</a>`, className: 'url' },
    { label: 'Task', cell: (d) => html`<a href="/console/tasks/${d.task_id}">${d.task_id}</a>` },
    { label: 'State', cell: (d) => html`${badge(d.status)} ${d.attempt_count} attempt${d.attempt_count === 1 ? '' : 's'}` },
    { label: 'Last answer', cell: (d) => d.last_error || (d.last_status_code ? `HTTP ${d.last_status_code}` : '—'), className: 'url' },
    { label: 'Created', cell: (d) => when(d.created_at) },
    {
      label: 'Action',
      cell: (d) =>
        actionButton(`/console/tasks/${d.task_id}/webhooks/${d.webhook_id}/redeliver`, 'Redeliver', context, 'webhook.redeliver', {
          kind: 'secondary',
          fields: { back: 'deliveries' },
        }),
    },
  ],
  rows,
)}`
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
  <dt>Each fetched every</dt><dd>${durationOf(c.effectiveIntervalSeconds)}</dd>
  <dt>Numbers a request</dt><dd>${c.numbersPerRequest}</dd>
  <dt>Formats</dt><dd>${c.formats.map((f) => f.name).join('; ')}</dd>
</dl></section>`,
)}
</div>
<p class="muted">"simulator": no credentials, so the built-in carrier simulator answers (docs/simulator.md); "unavailable": no credentials in production. The circuit opens when a carrier's requests keep failing: none of its tasks is claimed until one request probes it again (docs/carriers.md). Budgets are per worker process (<code>&lt;CARRIER&gt;_REQUEST_BUDGET</code>: per second, minute, hour or day); when a carrier's active tasks need more requests than its budget, each is fetched less often, never more than the budget pays for.</p>`
}

export function settingsView(settings: Settings, context: PageContext): Html {
  const editable = may(context.role, 'settings.update')
  return html`${editable ? '' : html`<p class="notice ok" role="status">Your role (${context.role}) reads the settings; an admin changes them.</p>`}<form method="post" action="/console/settings" class="card">
  <fieldset${editable ? '' : html` disabled`}><legend class="skip">Settings</legend>
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  ${SETTING_SPECS.map(([name, s]) => {
    const help = html`<br><span id="${name}-help" class="muted">${s.description} (${s.kind === 'integer' ? `${s.min} to ${s.max}` : s.values.join(' or ')}, default ${s.default})</span>`
    return s.kind === 'integer'
      ? html`<p><label for="${name}">${name}</label>
    <input id="${name}" name="${name}" type="number" inputmode="numeric" min="${s.min}" max="${s.max}" step="1" value="${settings[name]}" aria-describedby="${name}-help" required>${help}</p>`
      : html`<p><label for="${name}">${name}</label>
    <select id="${name}" name="${name}" aria-describedby="${name}-help">${s.values.map((v) => html`<option${v === settings[name] ? html` selected` : ''}>${v}</option>`)}</select>${help}</p>`
  })}
  <button type="submit">Save settings</button></fieldset>
</form>`
}
