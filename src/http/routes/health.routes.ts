import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { HealthService } from '../../services/health.service'
import { success } from '../envelope'
import { errors } from '../schemas/common.schema'
import { Health, Ready } from '../schemas/health.schema'

const tags = ['operations']

/** Liveness and readiness: no token (a load balancer or a supervisor asks them). */
export const healthRoutes: FastifyPluginAsyncTypebox<{ health: HealthService }> = async (app, { health }) => {
  app.get('/healthz', { schema: { operationId: 'healthz', summary: 'Liveness', tags, security: [], response: { 200: Health, ...errors(400) } } }, async () =>
    success({ status: 'ok' as const, database: health.databaseKind, carriers: health.carrierModes }),
  )
  app.get(
    '/readyz',
    { schema: { operationId: 'readyz', summary: 'Readiness: the database answers', tags, security: [], response: { 200: Ready, ...errors(400) } } },
    async () => {
      await health.checkDatabase()
      return success({ status: 'ready' as const, carriers: health.carrierCircuits() })
    },
  )
}
