import type { ApiUserService } from '../../services/api-user.service'
import type { FullTaskJson } from '../../domain/task-document'
import type { EndpointRecord } from '../../domain/webhook-endpoint'
import { html, type Html } from '../html'
import { actionButton, badge, secretBlock, when, type PageContext } from './layout'

type ApiUserRow = Awaited<ReturnType<ApiUserService['list']>>[number]
type ApiTokenRow = Awaited<ReturnType<ApiUserService['listTokens']>>[number]

export interface ShownSecrets {
  token?: string
  webhookSecret?: string
}

function shownOnce(secrets: ShownSecrets): Html {
  if (!secrets.token && !secrets.webhookSecret) return html``
  return html`<section class="notice ok" role="status" aria-labelledby="once"><strong id="once">Copy these now: they are shown once and cannot be read again.</strong>
  ${secrets.token ? secretBlock('secret-token', 'API token', secrets.token) : ''}
  ${secrets.webhookSecret ? secretBlock('secret-webhook', 'Webhook signing secret', secrets.webhookSecret) : ''}</section>`
}

export function usersView(users: ApiUserRow[], context: PageContext, secrets: ShownSecrets = {}): Html {
  return html`${shownOnce(secrets)}
<form class="row" method="post" action="/console/users">
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  <div><label for="name">New API user</label><input id="name" name="name" required maxlength="100" placeholder="Shop name"></div>
  <button type="submit">Create user</button>
</form>
${
  users.length === 0
    ? html`<p class="empty">No API users yet. Create one above: it gets an API token and a webhook signing secret, shown once.</p>`
    : html`<div class="table-wrap"><table><caption class="skip">API users</caption><thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Created</th></tr></thead><tbody>
${users.map((u) => html`<tr><td>${u.id}</td><td><a href="/console/users/${u.id}">${u.name}</a></td><td>${when(u.created_at)}</td></tr>`)}
</tbody></table></div>`
}`
}

export function userView(
  user: ApiUserRow,
  tokens: ApiTokenRow[],
  endpoints: EndpointRecord[],
  tasks: FullTaskJson[],
  context: PageContext,
  secrets: ShownSecrets = {},
): Html {
  return html`${shownOnce(secrets)}
<dl class="facts"><dt>Id</dt><dd>${user.id}</dd><dt>Created</dt><dd>${when(user.created_at)}</dd></dl>
<h2>API tokens</h2>
<p>${actionButton(`/console/users/${user.id}/tokens`, 'Issue a new token', context)} ${actionButton(
    `/console/users/${user.id}/webhook-secret/rotate`,
    'Rotate the webhook secret',
    context,
    {
      kind: 'secondary',
      confirm: 'Rotate the webhook signing secret? The old one keeps signing for 24 hours.',
    },
  )}</p>
${
  tokens.length === 0
    ? html`<p class="empty">No tokens.</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Token id</th><th scope="col">Issued</th><th scope="col">State</th><th scope="col"><span class="skip">Action</span></th></tr></thead><tbody>
${tokens.map(
  (t) =>
    html`<tr><td>${t.id}</td><td>${when(t.created_at)}</td><td>${t.revoked_at ? html`revoked ${when(t.revoked_at)}` : badge('active')}</td><td>${
      t.revoked_at
        ? ''
        : actionButton(`/console/users/${user.id}/tokens/${t.id}/revoke`, 'Revoke', context, {
            kind: 'danger',
            confirm: `Revoke token ${t.id}? Requests with it are refused within seconds.`,
          })
    }</td></tr>`,
)}
</tbody></table></div>`
}
<h2>Webhook endpoints</h2>
${
  endpoints.length === 0
    ? html`<p class="empty">No webhook endpoints: this user's events go only to each task's callbackUrl.</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Id</th><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th></tr></thead><tbody>
${endpoints.map((e) => html`<tr><td>${e.endpointId}</td><td>${e.url}</td><td>${e.eventTypes.join(', ')}</td><td>${badge(e.enabled ? 'enabled' : 'disabled')}</td></tr>`)}
</tbody></table></div>`
}
<h2>Latest tasks</h2>
${tasksTable(tasks)}
<p><a href="/console/tasks?userId=${user.id}">All of this user's tasks</a></p>`
}

export function tasksTable(tasks: FullTaskJson[]): Html {
  if (tasks.length === 0) return html`<p class="empty">No tasks.</p>`
  return html`<div class="table-wrap"><table><thead><tr><th scope="col">Task</th><th scope="col">Carrier</th><th scope="col">Tracking number</th><th scope="col">Status</th><th scope="col" class="hide-narrow">Updated</th></tr></thead><tbody>
${tasks.map(
  (t) =>
    html`<tr><td>${t.taskId}</td><td>${t.carrierCode}</td><td><a href="/console/tasks/${t.taskId}">${t.trackingNumber}</a></td><td>${badge(t.standardStatus)} ${
      t.milestone !== t.standardStatus ? html`<span class="muted">${t.milestone.replaceAll('_', ' ')}</span>` : ''
    }</td><td class="hide-narrow">${when(t.updatedAt)}</td></tr>`,
)}
</tbody></table></div>`
}
