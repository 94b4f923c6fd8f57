import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { invalid } from '../../domain/errors'
import { parseTrackingNumber } from '../../domain/subscription-input'
import type { CarrierCatalogService } from '../../services/carrier-catalog.service'
import { success } from '../envelope'
import { CarrierList, Detection, DetectQuery } from '../schemas/carrier.schema'
import { API_ERRORS, errors } from '../schemas/common.schema'

const tags = ['carriers']

/** The carriers the service knows, and which of them a tracking number may belong to. */
export const carrierRoutes: FastifyPluginAsyncTypebox<{ carriers: CarrierCatalogService }> = async (app, { carriers }) => {
  app.get(
    '/openapi/carriers',
    { schema: { operationId: 'listCarriers', summary: 'The carriers of the registry', tags, response: { 200: CarrierList, ...errors(...API_ERRORS, 400) } } },
    async () => success({ carriers: (await carriers.listPaced()).map(({ activeTasks: _, ...carrier }) => carrier) }),
  )

  app.get(
    '/openapi/carriers/detect',
    {
      schema: {
        operationId: 'detectCarrier',
        summary: 'The carriers a tracking number may belong to, best first',
        tags,
        querystring: DetectQuery,
        response: { 200: Detection, ...errors(...API_ERRORS, 400) },
      },
    },
    async (request) => {
      const number = parseTrackingNumber(request.query.trackingNumber)
      if (!number.ok) throw invalid([{ field: 'trackingNumber', message: number.message }])
      return success({ trackingNumber: number.value, candidates: carriers.detect(number.value) })
    },
  )
}
