import { Type } from '@sinclair/typebox'
import { ROUTE_LABELS } from '../../carriers/carrier-route'
import { CARRIERS } from '../../carriers/registry'
import { envelope } from './common.schema'

/** The inbound gateway (docs/carriers.md, "Pushes"). */

const SOURCES = [...ROUTE_LABELS, ...CARRIERS.flatMap((c) => (c.pushes ? [c.pushes.label] : []))]

export const InboundParams = Type.Object({
  source: Type.String({
    maxLength: 40,
    examples: SOURCES,
    description: `who pushes: ${SOURCES.join(', ')} (17track: 17TRACK’s webhook, signed by its \`sign\` header; ups: UPS Track Alert, v1 with our secret in its \`credential\` header, v2 with a token of ours and \`x-api-key\`); a source this service does not run is not found`,
  }),
})

export const InboundHeaders = Type.Object({
  sign: Type.Optional(Type.String({ description: '17TRACK: lowercase hex SHA-256 of the raw body, "/" and the API key' })),
  credential: Type.Optional(Type.String({ description: 'UPS Track Alert v1: the secret this service gave in its subscription (UPS_TRACK_ALERT_SECRET)' })),
  authorization: Type.Optional(Type.String({ description: 'UPS Track Alert v2: Bearer and a token from POST /inbound/ups/token' })),
  'x-api-key': Type.Optional(Type.String({ description: 'UPS Track Alert v2: the OAuth client id (UPS_TRACK_ALERT_CLIENT_ID)' })),
})

export const InboundBody = Type.Unknown({
  description:
    'the push exactly as its sender wrote it (17TRACK: {event, data}; UPS: one event, {trackingNumber, activityStatus, …}); verified before it is read, at most 1 MiB',
})

export const InboundTokenHeaders = Type.Object({
  authorization: Type.Optional(Type.String({ description: 'Basic: the client id and secret (client_secret_basic)' })),
})

export const InboundTokenBody = Type.Unknown({ description: 'grant_type=client_credentials (form-encoded)' })

export const InboundToken = Type.Object(
  {
    access_token: Type.String({ description: 'valid for an hour; sent as `Authorization: Bearer` with each push' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'seconds' }),
  },
  { description: 'an OAuth 2.0 access token (RFC 6749 section 5.1)' },
)

export const InboundAccepted = envelope(
  Type.Object({
    received: Type.Literal(true),
    duplicate: Type.Boolean({ description: 'the same body was received before: it is applied once' }),
  }),
  'stored: the push is applied by the workers in the order pushes arrived',
)
