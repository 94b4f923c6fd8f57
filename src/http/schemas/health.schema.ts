import { Type } from '@sinclair/typebox'
import { component, envelope, ref, stringEnum } from './common.schema'

const HealthStatus = component(
  'Health',
  Type.Object({
    status: Type.Literal('ok'),
    database: stringEnum(['embedded', 'postgres'] as const, { description: 'the embedded PostgreSQL server, or the one at DATABASE_URL' }),
    carriers: Type.Record(Type.String(), stringEnum(['live', 'simulator', 'unavailable'] as const), {
      description: 'live: its credentials; simulator: the built-in simulator; unavailable: neither (NODE_ENV=production without credentials)',
    }),
  }),
)

export const Health = envelope(ref(HealthStatus), 'the process is alive')

const CarrierCircuit = component(
  'CarrierCircuit',
  Type.Object({
    state: stringEnum(['closed', 'open', 'half_open'] as const, {
      description: 'open: the carrier keeps failing; none of its tasks is claimed until retryAt, then one probe request',
    }),
    failures: Type.Integer({ minimum: 0, description: 'whole-request failures in a row' }),
    retryAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
  }),
)

export const Ready = envelope(
  Type.Object({
    status: Type.Literal('ready'),
    carriers: Type.Record(Type.String(), ref(CarrierCircuit), {
      description:
        'each carrier this process refreshes, with its circuit breaker (none in a ROLE=api process); a carrier outage does not make the process unready',
    }),
  }),
  'the database answers',
)
