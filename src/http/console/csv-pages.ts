import { PassThrough } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../../domain/errors'
import { MILESTONE_NAMES } from '../../domain/milestones'
import type { ImportRowResult } from '../../services/subscription-import.service'
import { exportCsv } from '../csv-files'
import { IMPORT_BODY_LIMIT } from '../routes/csv.routes'
import type { ConsoleOptions } from './console-http'
import { actorOf, form, hide, id, query } from './console-pages'

/**
 * A user's parcels in and out as CSV from the console (docs/console.md): the export streams the
 * API's export of the user's tasks; the import runs the API's import for the user and answers as
 * it goes, one JSON line per written chunk (`{"done","of"}`) and the results last, so that the
 * page shows its progress. A file refused as a whole (its header, not CSV) is a 400 before any row.
 */
export async function csvPages(app: FastifyInstance, o: ConsoleOptions): Promise<void> {
  app.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT }, (_request, body, done) => done(null, body))

  app.get('/users/:userId/export.csv', hide, async (request, reply) => {
    const userId = id((request.params as Record<string, string>).userId)
    await o.users.get(userId)
    const { milestone, carrierCode } = query(request)
    const chosen = MILESTONE_NAMES.find((m) => m === milestone)
    const csv = await exportCsv(o.tasks, userId, { ...(chosen ? { milestone: [chosen] } : {}), ...(carrierCode ? { carrierCode } : {}) })
    return reply
      .type('text/csv; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="user-${userId}-tasks.csv"`)
      .send(csv)
  })

  app.post('/users/:userId/import', { ...form('task.import'), bodyLimit: IMPORT_BODY_LIMIT }, async (request, reply) => {
    const userId = id((request.params as Record<string, string>).userId)
    await o.users.get(userId)
    if (typeof request.body !== 'string') throw new AppError('unsupported_media_type', 'The import takes a CSV file (text/csv).')
    const audited = { action: 'task.import', target: { kind: 'api_user', id: userId } } as const
    const lines = new PassThrough()
    const send = (line: unknown) => lines.write(`${JSON.stringify(line)}\n`)
    let started: (() => void) | undefined
    const firstChunk = new Promise<void>((resolve) => (started = resolve))
    const imported = o.imports.import(userId, request.body, (done, of) => {
      started?.()
      send({ done, of })
    })
    // Until the rows are read and judged, a refusal of the whole file is an answer of its own.
    try {
      await Promise.race([firstChunk, imported])
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_error') throw error
      await o.audit.note(actorOf(request), { ...audited, detail: { reason: error.message } }, 'refused')
      return reply
        .code(400)
        .type('application/json; charset=utf-8')
        .header('cache-control', 'no-store')
        .send({ error: `Not imported: ${error.message}.` })
    }
    void imported.then(
      async (results) => {
        send({ results })
        lines.end()
        await o.audit
          .note(actorOf(request), { ...audited, detail: summary(results) }, 'ok')
          .catch((error: unknown) => request.log.error({ err: error }, 'the audit of an import failed'))
      },
      (error: unknown) => {
        request.log.error({ err: error }, 'an import failed midway')
        send({ error: 'The import stopped midway (the rows written so far are kept). Try again: rows already tracked are reused.' })
        lines.end()
      },
    )
    return reply.type('application/x-ndjson; charset=utf-8').header('cache-control', 'no-store').send(lines)
  })
}

function summary(results: readonly ImportRowResult[]): Record<string, number> {
  const counts: Record<string, number> = { rows: results.length }
  for (const { result } of results) counts[result] = (counts[result] ?? 0) + 1
  return counts
}
