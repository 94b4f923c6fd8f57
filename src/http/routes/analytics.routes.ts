import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { TransitService } from '../../services/transit.service'
import { success } from '../envelope'
import { TransitTimesAnswer, TransitTimesQuery } from '../schemas/analytics.schema'
import { API_ERRORS, errors } from '../schemas/common.schema'

const tags = ['analytics']

/** What the caller's own delivered tasks show. */
export const analyticsRoutes: FastifyPluginAsyncTypebox<{ transit: TransitService }> = async (app, { transit }) => {
  app.get(
    '/openapi/analytics/transit-times',
    {
      schema: {
        operationId: 'transitTimes',
        summary: "Transit times, on-time and exception rates of the caller's delivered tasks, per lane or carrier",
        tags,
        querystring: TransitTimesQuery,
        response: { 200: TransitTimesAnswer, ...errors(...API_ERRORS, 400) },
      },
    },
    async (request) => {
      const { groupBy, ...filters } = request.query
      return success({ lanes: await transit.report(request.userId, groupBy ?? 'lane', filters) })
    },
  )
}
