import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { HealthService } from '../../services/health.service'
import { success } from '../presenters'
import { envelope, errorResponses } from '../schemas/common.schema'

const Health = envelope(
  Type.Object({
    status: Type.Literal('ok'),
    database: Type.Union([Type.Literal('embedded'), Type.Literal('postgres')]),
    carriers: Type.Record(Type.String(), Type.Union([Type.Literal('live'), Type.Literal('simulator')]), {
      description: 'carriers served by the built-in simulator say "simulator"',
    }),
  }),
  'the process is alive',
)
const Ready = envelope(Type.Object({ status: Type.Literal('ready') }), 'the database answers')

export const healthRoutes: FastifyPluginAsyncTypebox<{ health: HealthService }> = async (app, { health }) => {
  app.get('/healthz', { schema: { summary: 'Liveness', tags: ['operations'], response: { 200: Health } } }, async () =>
    success({ status: 'ok' as const, database: health.databaseKind, carriers: health.carrierModes }),
  )
  app.get('/readyz', { schema: { summary: 'Readiness: the database is reachable', tags: ['operations'], response: { 200: Ready, ...errorResponses } } }, async () => {
    await health.checkDatabase()
    return success({ status: 'ready' as const })
  })
}
