import type { AuditRow } from '../../services/audit-trail'
import type { OperatorRow } from '../../services/operator.service'
import { ACTOR_KINDS, OUTCOMES, TARGET_KINDS } from '../../domain/audit'
import { ACTION_NAMES } from '../../domain/operators'
import { html, type Html } from '../../domain/html'
import { badge, when } from './layout'
import { dataTable } from './table'

/** The audit log's filters as typed (every one optional). */
export interface AuditSearch {
  /** An operator's id, or 'admin_token' / 'cli'. */
  who: string
  action: string
  targetKind: string
  targetId: string
  since: string
  until: string
}

const WHO_LABELS: Record<(typeof ACTOR_KINDS)[number], string> = { operator: 'an operator', admin_token: 'the admin token', cli: 'the command line' }

function targetLink(row: AuditRow): Html | string {
  if (!row.target_kind) return '—'
  const href =
    row.target_id === null
      ? undefined
      : row.target_kind === 'api_user'
        ? `/console/users/${row.target_id}`
        : row.target_kind === 'task'
          ? `/console/tasks/${row.target_id}`
          : row.target_kind === 'operator'
            ? `/console/operators/${row.target_id}`
            : undefined
  const label = `${row.target_kind.replaceAll('_', ' ')}${row.target_id === null ? '' : ` ${row.target_id}`}`
  return href ? html`<a href="${href}">${label}</a>` : label
}

function detailText(detail: Record<string, unknown>): string {
  const parts = Object.entries(detail)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
  return parts.length === 0 ? '—' : parts.join('; ')
}

export function auditView(rows: AuditRow[], search: AuditSearch, operators: OperatorRow[], nextBeforeId: number | null, retentionDays: number): Html {
  const params = (extra: Record<string, string>) => new URLSearchParams(Object.entries({ ...search, ...extra }).filter(([, v]) => v !== '')).toString()
  const option = (value: string, label: string, selected: string) =>
    html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`
  return html`<form class="row" method="get" action="/console/audit" role="search">
  <div><label for="who">Who</label><select id="who" name="who">${option('', 'anyone', search.who)}${operators.map((o) => option(String(o.id), o.email, search.who))}${option('admin_token', 'the admin token', search.who)}${option('cli', 'the command line', search.who)}</select></div>
  <div><label for="action">Action</label><select id="action" name="action">${option('', 'any', search.action)}${ACTION_NAMES.map((a) => option(a, a, search.action))}</select></div>
  <div><label for="targetKind">Target</label><select id="targetKind" name="targetKind">${option('', 'any', search.targetKind)}${TARGET_KINDS.map((k) => option(k, k.replaceAll('_', ' '), search.targetKind))}</select></div>
  <div><label for="targetId">Target id</label><input id="targetId" name="targetId" value="${search.targetId}" maxlength="100"></div>
  <div><label for="since">From (UTC)</label><input id="since" name="since" type="datetime-local" value="${search.since}"></div>
  <div><label for="until">Before (UTC)</label><input id="until" name="until" type="datetime-local" value="${search.until}"></div>
  <button type="submit">Filter</button>
</form>
<p class="muted">Every change made through the console or the admin API, written with the change itself; kept ${retentionDays} days (the auditRetentionDays setting). Outcomes: ${OUTCOMES.join(', ')}. Actors: ${Object.values(WHO_LABELS).join(', ')}.</p>
${
  rows.length === 0
    ? html`<p class="empty">Nothing recorded${Object.values(search).some((v) => v) ? ' matches these filters' : ' yet'}.</p>`
    : dataTable(
        'Audit log',
        [
          { label: 'When', cell: (r) => when(r.at) },
          { label: 'Who', cell: (r) => (r.operator_id ? html`<a href="/console/operators/${r.operator_id}">${r.actor}</a>` : r.actor), className: 'url' },
          { label: 'Action', cell: (r) => html`<code>${r.action}</code>` },
          { label: 'Target', cell: targetLink },
          { label: 'Outcome', cell: (r) => badge(r.outcome) },
          { label: 'From', cell: (r) => r.address ?? '—', className: 'url' },
          { label: 'Detail', cell: (r) => detailText(r.detail), className: 'url' },
        ],
        rows,
      )
}
${nextBeforeId ? html`<p><a class="button" href="/console/audit?${params({ before: String(nextBeforeId) })}">Older entries</a></p>` : ''}`
}
