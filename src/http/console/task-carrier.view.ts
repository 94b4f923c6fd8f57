import { AUTO_CARRIER } from '../../domain/carriers'
import { CARRIER_CHANGE_LIMIT } from '../../domain/carrier-change'
import { may } from '../../domain/operators'
import type { FullTaskJson } from '../../domain/task-document'
import { html, type Html } from '../../domain/html'
import { badge, when, type PageContext } from './layout'

const OUTCOME_WORDS = {
  moved: 'moved to the first carrier that knew the number',
  not_found: 'no other carrier knew the number',
  conflict: 'the carrier that knew it is one this user already tracks the number with: the task stays',
  superseded: 'the task changed meanwhile: nothing moved',
} as const

/**
 * The task's carrier: its changes, what auto-correct tried, and (for a role that may) the form that
 * moves it to another carrier (`carriers`: the available ones).
 */
export function taskCarrierView(task: FullTaskJson, carriers: readonly string[], context: PageContext): Html {
  const id = String(task.taskId)
  const left = CARRIER_CHANGE_LIMIT - task.carrierChanges.length
  const correction = task.carrierCorrection
  return html`<section class="card" aria-labelledby="t-carrier"><h2 id="t-carrier">Carrier</h2>
${
  task.carrierChanges.length === 0
    ? html`<p class="muted">Never changed.</p>`
    : html`<ol>${task.carrierChanges.map(
        (c) =>
          html`<li>${c.previousCarrierCode} → <strong>${c.carrierCode}</strong> <span class="muted">${c.reason === 'user' ? 'by the user' : 'by auto-correct'} · ${when(c.changedAt)}</span></li>`,
      )}</ol>`
}
${
  correction
    ? html`<p>Auto-correct ${correction.outcome ? html`${badge(correction.outcome)} ${OUTCOME_WORDS[correction.outcome]}` : 'is trying now'} <span class="muted">(${when(correction.startedAt)})</span></p>
<ul>${correction.tried.map((t) => html`<li>${t.carrierCode}: ${t.outcome.replaceAll('_', ' ')}</li>`)}</ul>`
    : ''
}
${
  may(context.role, 'task.change_carrier') && left > 0
    ? html`<form method="post" action="/console/tasks/${id}/carrier" data-confirm="Move this task to another carrier? Its events are replaced by the new carrier's at its next fetch.">
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  <label for="carrierCode">Move to</label>
  <select id="carrierCode" name="carrierCode">${[AUTO_CARRIER, ...carriers.filter((c) => c !== task.carrierCode)].map((c) => html`<option>${c}</option>`)}</select>
  <button type="submit" class="secondary">Change carrier</button>
  <p class="muted">${left} change${left === 1 ? '' : 's'} left. The task keeps its id, page and webhooks, starts again as pending and is fetched at once.</p>
</form>`
    : left === 0
      ? html`<p class="muted">The task has had its ${CARRIER_CHANGE_LIMIT} carrier changes.</p>`
      : ''
}
</section>`
}
