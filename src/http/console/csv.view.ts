import { CARRIER_CODES } from '../../carriers/registry'
import { html, type Html } from '../../domain/html'
import { MILESTONE_NAMES } from '../../domain/milestones'
import { IMPORT_COLUMNS, IMPORT_MAX_ROWS } from '../../domain/csv-columns'
import { may } from '../../domain/operators'
import type { PageContext } from './layout'

/**
 * A user's parcels as CSV on their page: the export (a download, streamed) and the import (the
 * file sent by console.js with its progress: the upload, then the rows as they are written).
 */
export function csvSection(userId: number, context: PageContext): Html {
  return html`<h2>CSV</h2>
<form class="row" method="get" action="/console/users/${userId}/export.csv">
  <div><label for="export-milestone">Milestone</label><select id="export-milestone" name="milestone"><option value="">any</option>${MILESTONE_NAMES.map((m) => html`<option value="${m}">${m.replaceAll('_', ' ')}</option>`)}</select></div>
  <div><label for="export-carrier">Carrier</label><select id="export-carrier" name="carrierCode"><option value="">any</option>${CARRIER_CODES.map((c) => html`<option>${c}</option>`)}</select></div>
  <button type="submit" class="secondary">Export the tasks (CSV)</button>
</form>
${
  may(context.role, 'task.import')
    ? html`<form class="import" data-import="/console/users/${userId}/import" data-csrf="${context.csrfToken}">
  <label for="import-file">Subscribe parcels from a CSV file: a header row naming ${IMPORT_COLUMNS.join(', ')} (the first three required), up to ${IMPORT_MAX_ROWS.toLocaleString('en')} rows</label>
  <div class="row"><input id="import-file" type="file" accept=".csv,text/csv" required><button type="submit">Import</button></div>
  <progress max="100" value="0" hidden></progress>
  <p role="status" aria-live="polite"></p>
  <div data-results></div>
  <noscript><p class="muted">The import needs JavaScript; without it, send the file to POST /openapi/tracking-subscriptions/import with the user's token.</p></noscript>
</form>`
    : ''
}`
}
