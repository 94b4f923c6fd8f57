import { Type } from '@sinclair/typebox'
import { MAX_REPORT_LANES, TRANSIT_GROUPINGS, type LaneReport } from '../../domain/transit-report'
import { component, envelope, ref, stringEnum } from './common.schema'

const Day = (description: string) => Type.String({ format: 'date', description: `${description}: a delivery day in UTC, YYYY-MM-DD, inclusive` })

export const TransitTimesQuery = Type.Object(
  {
    carrierCode: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'a carrier of GET /openapi/carriers, any case' })),
    originCountry: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "exact, as the carrier wrote it (the full task's originAddress.country)" }),
    ),
    destinationCountry: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'exact, as the carrier wrote it' })),
    deliveredFrom: Type.Optional(Day('from')),
    deliveredTo: Type.Optional(Day('to')),
    groupBy: Type.Optional(
      stringEnum(TRANSIT_GROUPINGS, {
        description: 'lane (the default): a row per carrier and origin and destination country and state; carrier: a row per carrier, its lane fields null',
      }),
    ),
  },
  { description: 'filters combine with AND; unknown parameters are refused' },
)

const Place = (description: string) =>
  Type.Union([Type.String(), Type.Null()], { description: `${description}; "" when the carrier did not say, null when grouped by carrier` })

const TransitLane = component(
  'TransitLane',
  Type.Object({
    carrierCode: Type.String(),
    originCountry: Place("the origin's country"),
    originState: Place("the origin's state"),
    destinationCountry: Place("the destination's country"),
    destinationState: Place("the destination's state"),
    delivered: Type.Integer({ minimum: 1, description: 'deliveries learned from (docs/api.md, "Predicted delivery", says which are not)' }),
    transitHours: Type.Object(
      { p10: Type.Number(), median: Type.Number(), p90: Type.Number() },
      { description: 'percentiles of the transit time from first scan to delivery, in hours (one decimal)' },
    ),
    onTimeRate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: "of the deliveries that had a carrier's ETA, the share delivered by the first one the carrier gave; null when none had one",
    }),
    exceptionRate: Type.Number({ minimum: 0, maximum: 1, description: 'the share that passed through an exception (or a failed attempt) on the way' }),
  }),
)

export const TransitTimesAnswer = envelope(
  Type.Object({ lanes: Type.Array(ref(TransitLane), { description: `the busiest first, at most ${MAX_REPORT_LANES}` }) }),
  "the caller's own delivered tasks, per lane or carrier",
)

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const laneAgrees: Same<import('@sinclair/typebox').Static<typeof TransitLane>, LaneReport> = true
void laneAgrees
