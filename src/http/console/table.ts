import { html, type Html } from '../../domain/html'

/** A column of a console table: its header, and each row's cell. */
export interface Column<T> {
  label: string
  cell: (row: T) => Html | string | number
  /** A class for the column's cells (`url`: long text that breaks anywhere). */
  className?: string
}

/**
 * A table that stays whole on a phone: below 640 px each row becomes a card whose cells are
 * labelled with their column's header (`data-label`, shown by the stylesheet beside the cell's one
 * `div`, which keeps its content together), so no column is
 * cut off and nothing scrolls sideways. Wider, a plain table in a frame that may scroll, which
 * is a labelled region a keyboard can focus (and so scroll).
 */
export function dataTable<T>(caption: string, columns: Column<T>[], rows: readonly T[]): Html {
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0"><table class="stack"><caption class="skip">${caption}</caption><thead><tr>${columns.map(
    (c) => html`<th scope="col">${c.label}</th>`,
  )}</tr></thead><tbody>
${rows.map((row) => html`<tr>${columns.map((c) => html`<td data-label="${c.label}"${c.className ? html` class="${c.className}"` : ''}><div>${c.cell(row)}</div></td>`)}</tr>`)}
</tbody></table></div>`
}
