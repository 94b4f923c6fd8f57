import type { FullTaskJson, FullTaskMember } from './task-document'

/**
 * CSV in and out (docs/api.md, "CSV"): the columns of an import and of an export, and what a row
 * becomes. Pure: the http layer reads the CSV with csv-parse and writes it with Papa Parse.
 */

/** The most rows one import takes; a row beyond them is answered with an error of its own. */
export const IMPORT_MAX_ROWS = 10_000

/** An import's columns: the subscribe fields and the recipient's. The first three are required. */
export const IMPORT_COLUMNS = [
  'carrierCode',
  'trackingNumber',
  'callbackUrl',
  'externalReferenceNo',
  'recipientEmail',
  'recipientPhone',
  'recipientName',
  'recipientLanguage',
] as const
export type ImportColumn = (typeof IMPORT_COLUMNS)[number]
const REQUIRED: readonly ImportColumn[] = ['carrierCode', 'trackingNumber', 'callbackUrl']

/** The header row's columns in order, or what is wrong with it (an unknown, repeated or missing column). */
export function importHeader(cells: readonly string[]): { ok: true; columns: ImportColumn[] } | { ok: false; problem: string } {
  const columns: ImportColumn[] = []
  for (const [i, raw] of cells.entries()) {
    const cell = raw.trim()
    const column = IMPORT_COLUMNS.find((c) => c.toLowerCase() === cell.toLowerCase())
    if (!column) return { ok: false, problem: `column ${i + 1} of the header, "${cell.slice(0, 40)}", is not one of ${IMPORT_COLUMNS.join(', ')}` }
    if (columns.includes(column)) return { ok: false, problem: `the header names ${column} twice` }
    columns.push(column)
  }
  const missing = REQUIRED.filter((c) => !columns.includes(c))
  if (missing.length > 0) return { ok: false, problem: `the header must name ${missing.join(', ')}` }
  return { ok: true, columns }
}

/** A row as a subscribe body (the batch judges it); a recipient only when one of its cells is filled. */
export function importItem(columns: readonly ImportColumn[], cells: readonly string[]): Record<string, unknown> {
  const value = (column: ImportColumn) => {
    const i = columns.indexOf(column)
    return i < 0 ? '' : (cells[i] ?? '')
  }
  const item: Record<string, unknown> = {
    carrierCode: value('carrierCode'),
    trackingNumber: value('trackingNumber'),
    callbackUrl: value('callbackUrl'),
  }
  if (value('externalReferenceNo') !== '') item.externalReferenceNo = value('externalReferenceNo')
  const recipient: Record<string, string> = {}
  for (const [column, field] of [
    ['recipientEmail', 'email'],
    ['recipientPhone', 'phone'],
    ['recipientName', 'name'],
    ['recipientLanguage', 'language'],
  ] as const)
    if (value(column).trim() !== '') recipient[field] = value(column)
  if (Object.keys(recipient).length > 0) item.recipient = recipient
  return item
}

/** An export's columns: the full task's scalar members, and the destination's city and country. */
const EXPORT_MEMBERS = [
  'taskId',
  'carrierCode',
  'trackingNumber',
  'externalReferenceNo',
  'callbackUrl',
  'standardStatus',
  'milestone',
  'carrierStatus',
  'estimatedDeliveryAt',
  'predictedDeliveryAt',
  'trackingPageUrl',
  'active',
  'stoppedAt',
  'createdAt',
  'updatedAt',
  'lastCheckedAt',
] as const satisfies readonly FullTaskMember[]
export const EXPORT_COLUMNS = [...EXPORT_MEMBERS, 'destinationCity', 'destinationCountry'] as const
/** The members of the full task an export reads: its columns' (the database writes no more). */
export const EXPORT_DOCUMENT_MEMBERS = [...EXPORT_MEMBERS, 'destinationAddress'] as const satisfies readonly FullTaskMember[]
export type ExportedTask = Pick<FullTaskJson, (typeof EXPORT_DOCUMENT_MEMBERS)[number]>

/** A task as an export's row, each cell text a spreadsheet will not run. */
export function exportRow(task: ExportedTask): string[] {
  const cells = EXPORT_MEMBERS.map((member) => {
    const value = task[member]
    return value === null ? '' : String(value)
  })
  cells.push(task.destinationAddress.city, task.destinationAddress.country)
  return cells.map(inert)
}

/**
 * A cell a spreadsheet would read as a formula (starting with =, +, -, @, a tab or a carriage
 * return: OWASP's list) is written after a single quote, which the spreadsheet shows as text.
 */
export function inert(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell
}
