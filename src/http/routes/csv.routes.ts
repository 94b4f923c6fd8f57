import type { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { EXPORT_COLUMNS, IMPORT_COLUMNS, IMPORT_MAX_ROWS } from '../../domain/csv-columns'
import { byQuality } from '../../domain/tracking-page'
import type { SubscriptionImportService } from '../../services/subscription-import.service'
import type { TaskService } from '../../services/task.service'
import { exportCsv, importResultsCsv } from '../csv-files'
import { API_ERRORS, errors } from '../schemas/common.schema'
import { ImportResponse } from '../schemas/subscription.schema'
import { success } from '../envelope'
import { ListQuery } from '../schemas/task-lifecycle.schema'

const tags = ['subscriptions']
/** 10,000 rows of long URLs and recipients, with room to spare. */
export const IMPORT_BODY_LIMIT = 16 * 1024 * 1024
const ExportQuery = Type.Omit(ListQuery, ['limit', 'cursor', 'include'], { description: "the list's filters and sort; unknown parameters are refused" })

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
      if (wantsCsv(request.headers.accept)) return reply.type('text/csv; charset=utf-8').send(importResultsCsv(results))
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
      const { userId, query } = request
      const csv = await exportCsv(tasks, userId, query)
      return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="tracking-subscriptions.csv"').send(csv)
    },
  )
}

/** Whether the caller asked for CSV before JSON (by quality, then order). */
const wantsCsv = (accept: string | undefined): boolean =>
  byQuality(accept).find((r) => r.value === 'text/csv' || r.value === 'application/json')?.value === 'text/csv'
