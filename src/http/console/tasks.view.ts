import type { ConsoleService } from '../../services/console.service'
import type { FullTaskJson } from '../../domain/task-document'
import type { Address } from '../../domain/tracking-task'
import type { DeliveryRecord } from '../../domain/webhook-record'
import { html, type Html } from '../../domain/html'
import { actionButton, badge, when, type PageContext } from './layout'
import { dataTable } from './table'
import { taskCarrierView } from './task-carrier.view'

type ConsoleTaskRow = Awaited<ReturnType<ConsoleService['searchTasks']>>[number]
type TaskOwner = Awaited<ReturnType<ConsoleService['task']>>['owner']

export interface TaskSearch {
  q: string
  status: string
  milestone: string
  carrier: string
  userId: string
}

export function tasksView(
  rows: ConsoleTaskRow[],
  search: TaskSearch,
  options: { statuses: readonly string[]; milestones: readonly string[]; carriers: readonly string[]; nextBeforeId?: number },
): Html {
  const query = (extra: Record<string, string>) =>
    new URLSearchParams(
      Object.entries({ q: search.q, status: search.status, milestone: search.milestone, carrier: search.carrier, userId: search.userId, ...extra }).filter(
        ([, v]) => v,
      ),
    ).toString()
  return html`<form class="row" method="get" action="/console/tasks" role="search">
  <div><label for="q">Tracking number or external reference</label><input id="q" name="q" value="${search.q}" maxlength="128" placeholder="794843185271 or order-1001"></div>
  <div><label for="status">Status</label><select id="status" name="status"><option value="">any</option>${options.statuses.map((s) => html`<option value="${s}"${s === search.status ? html` selected` : ''}>${s.replaceAll('_', ' ')}</option>`)}</select></div>
  <div><label for="milestone">Milestone</label><select id="milestone" name="milestone"><option value="">any</option>${options.milestones.map((m) => html`<option value="${m}"${m === search.milestone ? html` selected` : ''}>${m.replaceAll('_', ' ')}</option>`)}</select></div>
  <div><label for="carrier">Carrier</label><select id="carrier" name="carrier"><option value="">any</option>${options.carriers.map((c) => html`<option${c === search.carrier ? html` selected` : ''}>${c}</option>`)}</select></div>
  ${search.userId ? html`<input type="hidden" name="userId" value="${search.userId}">` : ''}
  <button type="submit">Search</button>
</form>
${search.userId ? html`<p>Tasks of API user <a href="/console/users/${search.userId}">${search.userId}</a> · <a href="/console/tasks">all users</a></p>` : ''}
${
  rows.length === 0
    ? html`<p class="empty">${search.q || search.status || search.milestone || search.carrier ? 'No task matches. A tracking number or reference must match exactly (case counts).' : 'No tasks yet.'}</p>`
    : dataTable(
        'Tasks',
        [
          { label: 'Task', cell: (t) => html`<a href="/console/tasks/${t.id}">${t.id}</a>` },
          { label: 'Tracking number', cell: (t) => html`<a href="/console/tasks/${t.id}">${t.tracking_number}</a>`, className: 'url' },
          {
            label: 'Status',
            cell: (t) =>
              html`${badge(t.standard_status)}${t.milestone !== t.standard_status ? html` <span class="muted">${t.milestone.replaceAll('_', ' ')}</span>` : ''}`,
          },
          { label: 'Carrier', cell: (t) => t.carrier_code },
          { label: 'API user', cell: (t) => html`<a href="/console/users/${t.user_id}">${t.user_name}</a>`, className: 'url' },
          { label: 'Reference', cell: (t) => t.external_reference_no || html`<span class="muted">—</span>`, className: 'url' },
          { label: 'Updated', cell: (t) => when(t.updated_at) },
        ],
        rows,
      )
}
${options.nextBeforeId ? html`<p><a class="button" href="/console/tasks?${query({ before: String(options.nextBeforeId) })}">Next page</a></p>` : ''}`
}

const text = (value: string) => (value === '' ? '—' : value)
const address = (a: Address) => [a.address, a.city, a.state, a.postalCode, a.country].filter(Boolean).join(', ') || '—'

export function taskView(owner: TaskOwner, task: FullTaskJson, deliveries: DeliveryRecord[], carriers: readonly string[], context: PageContext): Html {
  const id = String(task.taskId)
  const events = [...(task.events ?? [])].reverse()
  return html`<p>${actionButton(`/console/tasks/${id}/refresh`, 'Refresh now', context, 'task.refresh')} ${
    task.active
      ? actionButton(`/console/tasks/${id}/stop`, 'Stop tracking', context, 'task.stop', {
          kind: 'danger',
          confirm: 'Stop tracking this parcel? Its carrier is not asked again until a refresh.',
        })
      : ''
  }</p>
<div class="cards">
<section class="card" aria-labelledby="t-facts"><h2 id="t-facts">The task</h2><dl class="facts">
  <dt>API user</dt><dd><a href="/console/users/${owner.id}">${owner.name}</a> <span class="muted">(${owner.id})</span></dd>
  <dt>Carrier</dt><dd>${text(task.carrierCode)}</dd>
  <dt>Tracking number</dt><dd>${text(task.trackingNumber)}</dd>
  <dt>Reference</dt><dd>${text(task.externalReferenceNo)}</dd>
  <dt>Status</dt><dd>${badge(task.standardStatus)}${task.milestone !== task.standardStatus ? html` <span class="muted">${task.milestone.replaceAll('_', ' ')}</span>` : ''}</dd>
  <dt>Carrier says</dt><dd>${text(task.carrierStatus)}</dd>
  <dt>Estimated delivery</dt><dd>${when(task.estimatedDeliveryAt)}</dd>
  <dt>From</dt><dd>${address(task.originAddress)}</dd>
  <dt>To</dt><dd>${address(task.destinationAddress)}</dd>
  <dt>Callback URL</dt><dd>${text(task.callbackUrl)}</dd>
  <dt>Tracking</dt><dd>${
    task.active ? html`active; next check ${when(task.nextCheckAt)}` : task.stoppedAt ? html`stopped ${when(task.stoppedAt)}` : 'finished: its status is final'
  }</dd>
  <dt>Last checked</dt><dd>${when(task.lastCheckedAt)}</dd>
  <dt>Created</dt><dd>${when(task.createdAt)}</dd>
</dl></section>
<section class="card" aria-labelledby="t-events"><h2 id="t-events">Timeline</h2>
${
  events.length === 0
    ? html`<p class="empty">No events yet: the carrier has not been asked, or knows nothing of this number.</p>`
    : html`<ol class="timeline">${events.map(
        (e) =>
          html`<li><strong>${text(e.description) === '—' ? text(e.statusInfo) : text(e.description)}</strong><br><span class="muted">${when(e.eventTime)} · ${text(e.eventCode)} · ${(e.milestone || e.status || 'unknown code').replaceAll('_', ' ')}${
            e.city ? ` · ${e.city}` : ''
          }</span>${e.exceptionDescription ? html`<br>${e.exceptionDescription}` : ''}</li>`,
      )}</ol>`
}
</section>
</div>
${taskCarrierView(task, carriers, context)}
<h2>Webhook deliveries</h2>
${
  deliveries.length === 0
    ? html`<p class="empty">No webhook yet: one is made at each status change.</p>`
    : deliveries.map(
        (d) => html`<details>
  <summary>${badge(d.status)} <strong>${d.type}</strong> · ${d.webhookId} · ${d.attemptCount} attempt${d.attemptCount === 1 ? '' : 's'} · ${when(d.createdAt)}${d.nextRetryAt ? html` · next try ${when(d.nextRetryAt)}` : ''}</summary>
  <p>${actionButton(`/console/tasks/${id}/webhooks/${d.webhookId}/redeliver`, 'Redeliver', context, 'webhook.redeliver', { kind: 'secondary' })}</p>
  ${
    d.attempts.length === 0
      ? html`<p class="muted">Not attempted yet.</p>`
      : dataTable(
          `Attempts of ${d.webhookId}`,
          [
            { label: '#', cell: (a) => a.attemptNumber },
            { label: 'Started', cell: (a) => when(a.startedAt) },
            { label: 'HTTP', cell: (a) => a.responseStatusCode || '—' },
            { label: 'Took', cell: (a) => `${a.durationMs} ms` },
            { label: 'Error', cell: (a) => a.errorMessage || '—', className: 'url' },
            { label: 'Answer (excerpt)', cell: (a) => html`<pre>${a.responseBody.slice(0, 300) || '—'}</pre>` },
          ],
          d.attempts,
        )
  }
</details>`,
      )
}`
}
