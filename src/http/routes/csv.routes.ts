import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { stringify } from 'csv-stringify/sync'
import { EXPORT_COLUMNS, EXPORT_DOCUMENT_MEMBERS, exportRow, IMPORT_COLUMNS, IMPORT_MAX_ROWS, type ExportedTask } from '../../domain/csv-columns'
import { byQuality } from '../../domain/tracking-page'
import { INTERNAL_PAGE_MAX } from '../../domain/task-list'
import type { SubscriptionImportService, ImportRowResult } from '../../services/subscription-import.service'
import type { TaskService } from '../../services/task.service'
import { API_ERRORS, errors } from '../schemas/common.schema'
import { ImportResponse } from '../schemas/subscription.schema'
import { success } from '../envelope'
import { ListQuery } from '../schemas/task-lifecycle.schema'

const tags = ['subscriptions']
/** 10,000 rows of long URLs and recipients, with room to spare. */
const IMPORT_BODY_LIMIT = 16 * 1024 * 1024
/** Tasks read a page of the export: one page in memory whatever the count, few statements. */
const EXPORT_PAGE = INTERNAL_PAGE_MAX
const ExportQuery = Type.Omit(ListQuery, ['limit', 'cursor', 'include'], { description: "the list's filters and sort; unknown parameters are refused" })
const RESULT_COLUMNS = ['line', 'result', 'taskId', 'carrierCode', 'trackingNumber', 'message'] as const satisfies readonly (keyof ImportRowResult)[]
// RFC 4180: CRLF between records, a cell quoted when it holds a comma, a quote or a line break.
const CSV = { record_delimiter: 'windows' } as const

/**
 * CSV in and out (docs/api.md, "CSV"): an import of up to IMPORT_MAX_ROWS parcels through the batch
 * path, answered per row as JSON or CSV by Accept; an export of the list's tasks, streamed page by
 * page.
 */
export const csvRoutes: FastifyPluginAsyncTypebox<{ imports: SubscriptionImportService; tasks: TaskService }> = async (app, { imports, tasks }) => {
  app.addContentTypeParser(['text/csv', 'application/csv'], { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT }, (_request, body, done) => done(null, body))

  app.post(
    '/openapi/tracking-subscriptions/import',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        operationId: 'importSubscriptions',
        summary: `Subscribe to tracking of up to ${IMPORT_MAX_ROWS} parcels from CSV`,
        description: `A header row naming ${IMPORT_COLUMNS.join(', ')} (carrierCode, trackingNumber and callbackUrl required; any order, any case), then one parcel a row. Each row is judged as a batch item and fails alone, with its line; an existing task is reused unchanged. \`Accept: text/csv\` answers the rows' results as CSV.`,
        tags,
        consumes: ['text/csv'],
        body: Type.String({ description: 'RFC 4180 CSV in UTF-8 (a byte order mark is allowed)' }),
        response: {
          200: {
            description: 'one result per row, in order',
            content: { 'application/json': { schema: ImportResponse }, 'text/csv': { schema: Type.String() } },
          },
          ...errors(...API_ERRORS, 400, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const results = await imports.import(request.userId, request.body)
      if (wantsCsv(request.headers.accept)) {
        const rows = results.map((r) => RESULT_COLUMNS.map((c) => String(r[c])))
        return reply.type('text/csv; charset=utf-8').send(stringify([[...RESULT_COLUMNS], ...rows], CSV))
      }
      return reply.type('application/json; charset=utf-8').send(success({ results }))
    },
  )

  app.get(
    '/openapi/tracking-subscriptions/export',
    {
      schema: {
        operationId: 'exportSubscriptions',
        summary: "Every task of the list's filters as CSV, streamed",
        description: `Columns: ${EXPORT_COLUMNS.join(', ')}. RFC 4180 in UTF-8; a cell a spreadsheet would run as a formula (=, +, -, @) is written after a single quote.`,
        tags,
        querystring: ExportQuery,
        response: {
          // Streamed: the answer is a stream of CSV text.
          200: { description: 'the tasks, one a row', content: { 'text/csv': { schema: Type.Unsafe<Readable>(Type.String()) } } },
          ...errors(...API_ERRORS, 400),
        },
      },
    },
    async (request, reply) => {
      const pages = tasks.allPages(request.userId, request.query, EXPORT_PAGE, EXPORT_DOCUMENT_MEMBERS)
      // The first page before the answer starts: a wrong filter is a 400, not a broken download.
      const first = await pages.next()
      async function* csv(): AsyncGenerator<string> {
        yield stringify([[...EXPORT_COLUMNS]], CSV)
        if (first.done) return
        yield pageText(first.value)
        for await (const page of pages) if (page.length > 0) yield pageText(page)
      }
      return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="tracking-subscriptions.csv"').send(Readable.from(csv()))
    },
  )
}

const pageText = (documents: string[]) =>
  stringify(
    documents.map((d) => exportRow(JSON.parse(d) as ExportedTask)),
    CSV,
  )

/** Whether the caller asked for CSV before JSON (by quality, then order). */
const wantsCsv = (accept: string | undefined): boolean =>
  byQuality(accept).find((r) => r.value === 'text/csv' || r.value === 'application/json')?.value === 'text/csv'
