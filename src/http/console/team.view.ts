import type { OperatorRow, OperatorSessionRow } from '../../services/operator.service'
import { may, PASSWORD_MIN, ROLE_DESCRIPTIONS, ROLES, type Role } from '../../domain/operators'
import { html, type Html } from '../../domain/html'
import { actionButton, badge, when, type PageContext } from './layout'
import { dataTable } from './table'

/** The operators' pages and the signed-in operator's own account. */

const roleSelect = (id: string, selected: Role | '' = '') =>
  html`<select id="${id}" name="role" required>${ROLES.map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${r}: ${ROLE_DESCRIPTIONS[r]}</option>`)}</select>`

const passwordInput = (id: string, name: string, autocomplete: string) =>
  html`<input id="${id}" name="${name}" type="password" minlength="${PASSWORD_MIN}" maxlength="256" autocomplete="${autocomplete}" aria-describedby="${id}-help" required>
  <br><span id="${id}-help" class="muted">at least ${PASSWORD_MIN} characters</span><br>`

const state = (o: OperatorRow) => (o.disabled_at ? html`${badge('disabled')} ${when(o.disabled_at)}` : badge('active'))

export function operatorsView(operators: OperatorRow[], context: PageContext, typed: { email: string; role: Role | '' } = { email: '', role: '' }): Html {
  return html`${
    may(context.role, 'operator.create')
      ? html`<form method="post" action="/console/operators" class="card" aria-labelledby="new-operator">
  <h2 id="new-operator">New operator</h2>
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  <div class="row">
    <div><label for="op-email">Email</label><input id="op-email" name="email" type="email" maxlength="254" value="${typed.email}" autocomplete="off" required></div>
    <div><label for="op-role">Role</label>${roleSelect('op-role', typed.role)}</div>
    <div><label for="op-password">First password</label>${passwordInput('op-password', 'password', 'new-password')}</div>
  </div>
  <button type="submit">Create operator</button>
</form>`
      : html`<p class="muted">Operators are created and changed by an admin.</p>`
  }
${
  operators.length === 0
    ? html`<p class="empty">No operators yet: everyone signs in with the admin token. Create one above for each person, with the role they need.</p>`
    : dataTable(
        'Operators',
        [
          { label: 'Email', cell: (o) => html`<a href="/console/operators/${o.id}">${o.email}</a>`, className: 'url' },
          { label: 'Role', cell: (o) => badge(o.role) },
          { label: 'State', cell: state },
          { label: 'Sessions', cell: (o) => o.sessions },
          { label: 'Created', cell: (o) => when(o.created_at) },
        ],
        operators,
      )
}
<p class="muted">admin: ${ROLE_DESCRIPTIONS.admin}. support: ${ROLE_DESCRIPTIONS.support}. viewer: ${ROLE_DESCRIPTIONS.viewer}. The role is checked on the server for every action.</p>`
}

export function operatorView(operator: OperatorRow, sessions: OperatorSessionRow[], context: PageContext): Html {
  const base = `/console/operators/${operator.id}`
  const admin = may(context.role, 'operator.update')
  return html`<dl class="facts"><dt>Role</dt><dd>${badge(operator.role)} <span class="muted">${ROLE_DESCRIPTIONS[operator.role]}</span></dd>
<dt>State</dt><dd>${state(operator)}</dd><dt>Created</dt><dd>${when(operator.created_at)}</dd></dl>
${
  admin
    ? html`<div class="cards">
<form method="post" action="${base}" class="card" aria-labelledby="op-role-h"><h2 id="op-role-h">Role</h2>
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  <label for="role">Role</label>${roleSelect('role', operator.role)}
  <button type="submit">Save the role</button>
</form>
<form method="post" action="${base}/password" class="card" aria-labelledby="op-pw-h"><h2 id="op-pw-h">A new password</h2>
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  <p class="muted">For an operator who forgot theirs: their sessions end.</p>
  <label for="reset-password">New password</label>${passwordInput('reset-password', 'password', 'new-password')}
  <button type="submit" class="secondary">Set the password</button>
</form>
</div>
<p>${actionButton(base, operator.disabled_at ? 'Enable' : 'Disable', context, 'operator.update', {
        kind: operator.disabled_at ? 'secondary' : 'danger',
        fields: { disabled: operator.disabled_at ? 'false' : 'true' },
        confirm: operator.disabled_at
          ? `Enable ${operator.email}? They can sign in again.`
          : `Disable ${operator.email}? Their sessions end now and they cannot sign in.`,
      })}</p>`
    : ''
}
<h2>Sessions</h2>
${
  sessions.length === 0
    ? html`<p class="empty">Not signed in anywhere.</p>`
    : html`${dataTable(
        'Sessions',
        [
          { label: 'Signed in', cell: (s) => when(s.created_at) },
          { label: 'Ends', cell: (s) => when(s.expires_at) },
          { label: 'From', cell: (s) => s.address ?? '—' },
        ],
        sessions,
      )}
<p>${actionButton(`${base}/sessions/revoke`, 'End every session', context, 'operator.revoke_sessions', {
        kind: 'danger',
        confirm: `End every session of ${operator.email}? They must sign in again.`,
      })}</p>`
}
<p><a href="/console/audit?operatorId=${operator.id}">What ${operator.email} did (audit log)</a></p>`
}

export function accountView(context: PageContext, expiresAt: Date): Html {
  const actor = context.actor
  return html`<dl class="facts"><dt>Signed in as</dt><dd>${actor.kind === 'operator' ? actor.email : 'the admin token'}</dd>
<dt>Role</dt><dd>${badge(context.role)} <span class="muted">${ROLE_DESCRIPTIONS[context.role]}</span></dd>
<dt>This session ends</dt><dd>${when(expiresAt)}</dd></dl>
${
  actor.kind === 'operator'
    ? html`<form method="post" action="/console/account/password" class="card" aria-labelledby="pw-h"><h2 id="pw-h">Change your password</h2>
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  <p><label for="currentPassword">Current password</label><input id="currentPassword" name="currentPassword" type="password" maxlength="256" autocomplete="current-password" required></p>
  <p><label for="newPassword">New password</label>${passwordInput('newPassword', 'newPassword', 'new-password')}</p>
  <p class="muted">Your other sessions end; this one goes on.</p>
  <button type="submit">Change the password</button>
</form>`
    : html`<p class="muted">The admin token has no password: it is the service's <code>ADMIN_TOKEN</code>. Create an operator for each person (Operators), and keep the token for the admin API and for emergencies.</p>`
}`
}
