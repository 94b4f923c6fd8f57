import { Type } from '@sinclair/typebox'
import { ROUTE_LABELS } from '../../carriers/carrier-route'
import { TRACKING_NUMBER_MAX } from '../../domain/subscription-input'
import { CarrierCandidate, component, envelope, ref } from './common.schema'

/** The carriers and detection (docs/api.md, "Carriers"). */

const Carrier = component(
  'Carrier',
  Type.Object({
    carrierCode: Type.String({ examples: ['FEDEX'] }),
    name: Type.String({ examples: ['FedEx'] }),
    available: Type.Boolean({ description: 'false when the carrier has neither credentials nor the simulator here: subscribing it is unsupported_carrier' }),
    numbersPerRequest: Type.Integer({ minimum: 1, description: 'tracking numbers one carrier request carries' }),
    formats: Type.Array(Type.Object({ name: Type.String(), example: Type.String() }), { description: 'the tracking-number formats detection knows' }),
    requestBudget: Type.String({
      examples: ['50/second', '60/hour'],
      description: "the requests a worker process may send the carrier, per second, minute, hour or day (its quota's share)",
    }),
    route: Type.Optional(
      Type.Union(
        ROUTE_LABELS.map((label) => Type.Literal(label)),
        {
          description:
            'the aggregator the carrier is served through (its numbers are registered there, read at a slow pace and updated by its pushes); absent for a carrier with a plugin of its own',
        },
      ),
    ),
    effectiveIntervalSeconds: Type.Integer({
      minimum: 1,
      description:
        'how often each active task of the carrier is fetched: the poll interval, or longer when the budget cannot pay for fetching all its active tasks that often (active tasks × fetches a day ≤ the budget a day)',
    }),
  }),
)

export const CarrierList = envelope(Type.Object({ carriers: Type.Array(ref(Carrier)) }), 'every carrier of the registry')

export const DetectQuery = Type.Object({
  trackingNumber: Type.String({ minLength: 1, maxLength: TRACKING_NUMBER_MAX, description: 'trimmed before matching; any case' }),
})

export const Detection = envelope(
  Type.Object({
    trackingNumber: Type.String({ description: 'the trimmed number' }),
    candidates: Type.Array(ref(CarrierCandidate), { description: 'every carrier whose formats match, best first; empty when none does' }),
  }),
  'the carriers the number may belong to',
)
