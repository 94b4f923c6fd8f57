import type { ApiUserService } from '../../services/api-user.service'
import type { FullTaskJson } from '../../domain/task-document'
import type { EndpointRecord } from '../../domain/webhook-endpoint'
import { html, type Html } from '../../domain/html'
import { may } from '../../domain/operators'
import { actionButton, badge, secretBlock, when, type PageContext } from './layout'
import { dataTable } from './table'

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

export interface UserSearch {
  q: string
  nextAfterId?: number
}

export function usersView(users: ApiUserRow[], search: UserSearch, context: PageContext, secrets: ShownSecrets = {}): Html {
  return html`${shownOnce(secrets)}
${
  may(context.role, 'api_user.create')
    ? html`<form class="row" method="post" action="/console/users">
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  <div><label for="name">New API user</label><input id="name" name="name" required maxlength="100" placeholder="Shop name"></div>
  <button type="submit">Create user</button>
</form>`
    : ''
}
<form class="row" method="get" action="/console/users" role="search">
  <div><label for="q">Name or id</label><input id="q" name="q" value="${search.q}" maxlength="100" placeholder="acme or 42"></div>
  <button type="submit" class="secondary">Search</button>
</form>
${
  users.length === 0
    ? html`<p class="empty">${search.q ? 'No API user has that name or id.' : 'No API users yet. Create one above: it gets an API token and a webhook signing secret, shown once.'}</p>`
    : dataTable(
        'API users',
        [
          { label: 'Id', cell: (u) => u.id },
          { label: 'Name', cell: (u) => html`<a href="/console/users/${u.id}">${u.name}</a>`, className: 'url' },
          { label: 'Created', cell: (u) => when(u.created_at) },
        ],
        users,
      )
}
${search.nextAfterId ? html`<p><a class="button" href="/console/users?${new URLSearchParams({ ...(search.q ? { q: search.q } : {}), after: String(search.nextAfterId) }).toString()}">Next page</a></p>` : ''}`
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
<p>${actionButton(`/console/users/${user.id}/tokens`, 'Issue a new token', context, 'api_token.issue')} ${actionButton(
    `/console/users/${user.id}/webhook-secret/rotate`,
    'Rotate the webhook secret',
    context,
    'webhook_secret.rotate',
    {
      kind: 'secondary',
      confirm: 'Rotate the webhook signing secret? The old one keeps signing for 24 hours.',
    },
  )}</p>
${
  tokens.length === 0
    ? html`<p class="empty">No tokens.</p>`
    : dataTable(
        'API tokens',
        [
          {
            label: 'Token',
            cell: (t) =>
              html`${t.prefix ? html`<code>${t.prefix}…</code>` : html`<span class="muted">no prefix kept</span>`} <span class="muted">id ${t.id}</span>`,
          },
          { label: 'Issued', cell: (t) => when(t.created_at) },
          { label: 'Last used', cell: (t) => (t.last_used_at ? when(t.last_used_at) : html`<span class="muted">never</span>`) },
          { label: 'State', cell: (t) => (t.revoked_at ? html`revoked ${when(t.revoked_at)}` : badge('active')) },
          {
            label: 'Action',
            cell: (t) =>
              t.revoked_at
                ? ''
                : actionButton(`/console/users/${user.id}/tokens/${t.id}/revoke`, 'Revoke', context, 'api_token.revoke', {
                    kind: 'danger',
                    confirm: `Revoke token ${t.prefix ?? t.id}…? Requests with it are refused within seconds.`,
                  }),
          },
        ],
        tokens,
      )
}
<h2>Webhook endpoints</h2>
${
  endpoints.length === 0
    ? html`<p class="empty">No webhook endpoints: this user's events go only to each task's callbackUrl.</p>`
    : dataTable(
        'Webhook endpoints',
        [
          { label: 'Id', cell: (e) => e.endpointId },
          { label: 'URL', cell: (e) => e.url, className: 'url' },
          { label: 'Events', cell: (e) => e.eventTypes.join(', '), className: 'url' },
          { label: 'State', cell: (e) => badge(e.enabled ? 'enabled' : 'disabled') },
        ],
        endpoints,
      )
}
<h2>Latest tasks</h2>
${tasksTable(tasks)}
<p><a href="/console/tasks?userId=${user.id}">All of this user's tasks</a></p>`
}

export function tasksTable(tasks: FullTaskJson[]): Html {
  if (tasks.length === 0) return html`<p class="empty">No tasks.</p>`
  return dataTable(
    'Latest tasks',
    [
      { label: 'Task', cell: (t) => t.taskId },
      { label: 'Carrier', cell: (t) => t.carrierCode },
      { label: 'Tracking number', cell: (t) => html`<a href="/console/tasks/${t.taskId}">${t.trackingNumber}</a>`, className: 'url' },
      {
        label: 'Status',
        cell: (t) =>
          html`${badge(t.standardStatus)} ${t.milestone !== t.standardStatus ? html`<span class="muted">${t.milestone.replaceAll('_', ' ')}</span>` : ''}`,
      },
      { label: 'Updated', cell: (t) => when(t.updatedAt) },
    ],
    tasks,
  )
}
