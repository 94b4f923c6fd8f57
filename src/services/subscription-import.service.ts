import { parse } from 'csv-parse/sync'
import { IMPORT_MAX_ROWS, importHeader, importItem } from '../domain/csv-columns'
import { invalid } from '../domain/errors'
import type { SettingsRepository } from '../db/settings.repository'
import type { BatchItemResult, SubscriptionService } from './subscription.service'

/** One row's result: the batch's, with the row's line in the file in place of its index. */
export type ImportRowResult = Omit<BatchItemResult, 'index'> & { line: number }

/**
 * CSV import (docs/api.md, "CSV"): a header row naming the subscribe fields and the recipient's,
 * then one parcel a row, at most IMPORT_MAX_ROWS, each row judged and written through the batch
 * path in chunks of the batchMaxItems setting. A row that fails (too few or too many cells, a bad
 * URL, past the limit) fails alone, with its line; a header that is wrong refuses the file.
 */
export class SubscriptionImportService {
  constructor(
    private readonly subscriptions: SubscriptionService,
    private readonly settings: Pick<SettingsRepository, 'get'>,
  ) {}

  /** `progress` is told after each chunk is written: the rows judged so far (those failed alone included) of all of them. */
  async import(userId: number, csv: string, progress?: (done: number, of: number) => void): Promise<ImportRowResult[]> {
    let records: { record: string[]; info: { bytes: number } }[]
    try {
      records = parse(csv, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true }) as unknown as typeof records
    } catch (error) {
      throw invalid([{ field: 'body', message: `is not CSV (RFC 4180): ${(error as Error).message.slice(0, 200)}` }])
    }
    const [header, ...rows] = records
    if (!header) throw invalid([{ field: 'body', message: 'must hold a header row and at least one row' }])
    const judged = importHeader(header.record)
    if (!judged.ok) throw invalid([{ field: 'header', message: judged.problem }])
    const { columns } = judged
    if (rows.length === 0) throw invalid([{ field: 'body', message: 'must hold at least one row after the header' }])

    // One result per row, in its place: a row that fails here now, the others once their chunk is written.
    const results: ImportRowResult[] = new Array(rows.length)
    const items: { at: number; line: number; item: Record<string, unknown> }[] = []
    // Each row's first line in the file (a quoted cell may hold line breaks): the line breaks
    // before the bytes the parser had read when the row before it ended, and the empty lines after.
    const bytes = Buffer.from(csv)
    let line = 1
    let read = 0
    for (const [n, { record }] of rows.entries()) {
      let start = n === 0 ? header.info.bytes : rows[n - 1]!.info.bytes
      while (bytes[start] === 0x0d || bytes[start] === 0x0a) start++
      for (let i = read; i < start; i++) if (bytes[i] === 0x0a) line++
      read = start
      const failed = (message: string) => (results[n] = { line, trackingNumber: '', carrierCode: '', taskId: 0, result: 'validation_error', message })
      if (n >= IMPORT_MAX_ROWS) failed(`beyond the ${IMPORT_MAX_ROWS} rows one import takes`)
      else if (record.length !== columns.length) failed(`has ${record.length} cells where the header names ${columns.length}`)
      else items.push({ at: n, line, item: importItem(columns, record) })
    }
    const { batchMaxItems } = await this.settings.get()
    const failedAlone = rows.length - items.length
    progress?.(failedAlone, rows.length)
    for (let start = 0; start < items.length; start += batchMaxItems) {
      const chunk = items.slice(start, start + batchMaxItems)
      const answers = await this.subscriptions.subscribeBatch(userId, { items: chunk.map((c) => c.item) })
      for (const [i, { index: _index, ...answer }] of answers.entries()) results[chunk[i]!.at] = { ...answer, line: chunk[i]!.line }
      progress?.(failedAlone + start + chunk.length, rows.length)
    }
    return results
  }
}
