import { Readable } from 'node:stream'
import Papa from 'papaparse'
import { EXPORT_COLUMNS, EXPORT_DOCUMENT_MEMBERS, exportRow, type ExportedTask } from '../domain/csv-columns'
import type { ImportRowResult } from '../services/subscription-import.service'
import type { ListParameters, TaskService } from '../services/task.service'

/**
 * CSV files as the API and the console write them (docs/api.md, "CSV"), with Papa Parse's writer:
 * on 200,000 export rows it took half csv-stringify's time and allocated a sixth as much (csv-stringify's
 * garbage cost the service more in collections than the writing itself).
 */

/** RFC 4180: CRLF after every record, a cell quoted when it holds a comma, a quote, a line break (or starts or ends with a space). */
const csv = (records: readonly (readonly string[])[]) => (records.length === 0 ? '' : `${Papa.unparse(records as string[][], { newline: '\r\n' })}\r\n`)
export const RESULT_COLUMNS = ['line', 'result', 'taskId', 'carrierCode', 'trackingNumber', 'message'] as const satisfies readonly (keyof ImportRowResult)[]

/** An import's results as CSV, one row each, in the rows' order. */
export const importResultsCsv = (results: readonly ImportRowResult[]): string =>
  csv([[...RESULT_COLUMNS], ...results.map((r) => RESULT_COLUMNS.map((c) => String(r[c])))])

/**
 * Tasks an export reads a statement. Measured on 200,000 tasks (AMD EPYC, the service's 4 MB
 * semi-space): 1,000 a page cost the service 6.4 s of CPU, a third of it collecting pages that
 * outlived the young generation; 250, 3.2 s; 100, 3.5 s (more statements).
 */
const EXPORT_PAGE = 250

/**
 * The user's tasks of the list's filters as a CSV stream, a page of EXPORT_PAGE tasks at a time
 * (the next read while this one is written; two pages in memory whatever the count). The first
 * page is read before this returns: a wrong filter is an error to answer, not a broken download.
 */
export async function exportCsv(tasks: TaskService, userId: number, parameters: ListParameters): Promise<Readable> {
  const pages = tasks.allPages(userId, parameters, EXPORT_PAGE, EXPORT_DOCUMENT_MEMBERS)
  const first = await pages.next()
  async function* rows(): AsyncGenerator<string> {
    yield csv([[...EXPORT_COLUMNS]])
    if (first.done) return
    yield pageText(first.value)
    for await (const page of pages) if (page.length > 0) yield pageText(page)
  }
  // One page ahead of the socket at most: pages held longer outlive the young generation.
  return Readable.from(rows(), { highWaterMark: 1 })
}

const pageText = (documents: string[]) => csv(documents.map((d) => exportRow(JSON.parse(d) as ExportedTask)))
