import { Type } from '@sinclair/typebox'
import { component, envelope, ref, stringEnum } from './common.schema'

const HealthStatus = component(
  'Health',
  Type.Object({
    status: Type.Literal('ok'),
    database: stringEnum(['embedded', 'postgres'] as const, { description: 'the embedded PostgreSQL server, or the one at DATABASE_URL' }),
    carriers: Type.Record(Type.String(), stringEnum(['live', 'simulator'] as const), { description: 'carriers served by the built-in simulator say "simulator"' }),
  }),
)

export const Health = envelope(ref(HealthStatus), 'the process is alive')

export const Ready = envelope(Type.Object({ status: Type.Literal('ready') }), 'the database answers')
