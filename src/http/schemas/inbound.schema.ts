import { Type } from '@sinclair/typebox'
import { ROUTE_LABELS } from '../../carriers/carrier-route'
import { envelope } from './common.schema'

/** The inbound gateway (docs/carriers.md, "Pushes"). */

export const InboundParams = Type.Object({
  source: Type.String({
    maxLength: 40,
    examples: [...ROUTE_LABELS],
    description: `who pushes: ${ROUTE_LABELS.join(', ')} (17track: 17TRACK’s webhook, signed by its \`sign\` header); a source this service does not run is not found`,
  }),
})

export const InboundHeaders = Type.Object({
  sign: Type.Optional(Type.String({ description: '17TRACK: lowercase hex SHA-256 of the raw body, "/" and the API key' })),
})

export const InboundBody = Type.Unknown({
  description: 'the push exactly as its sender wrote it (17TRACK: {event, data}); verified over its raw bytes before it is read, at most 1 MiB',
})

export const InboundAccepted = envelope(
  Type.Object({
    received: Type.Literal(true),
    duplicate: Type.Boolean({ description: 'the same body was received before: it is applied once' }),
  }),
  'stored: the push is applied by the workers in the order pushes arrived',
)
