import { Type, type TSchema } from '@sinclair/typebox'

/** The envelope of every response: `{code, data, msg}`; HTTP status equals `code`. */
export function envelope<T extends TSchema>(data: T, description: string) {
  return Type.Object(
    {
      code: Type.Integer({ description: '200 on success', examples: [200] }),
      data,
      msg: Type.String({ description: '"success" on success', examples: ['success'] }),
    },
    { description },
  )
}

export const ErrorReason = Type.Union(
  [
    Type.Literal('validation_error'),
    Type.Literal('unsupported_carrier'),
    Type.Literal('unauthorized'),
    Type.Literal('not_found'),
    Type.Literal('payload_too_large'),
    Type.Literal('unsupported_media_type'),
    Type.Literal('rate_limited'),
    Type.Literal('unavailable'),
    Type.Literal('internal_error'),
  ],
  { description: 'why the request failed' },
)

export const ErrorEnvelope = Type.Object(
  {
    code: Type.Integer({ description: 'equals the HTTP status', examples: [400] }),
    data: Type.Object({
      error: ErrorReason,
      details: Type.Optional(
        Type.Array(Type.Object({ field: Type.String({ description: 'the offending field, "" for the whole body' }), message: Type.String() })),
      ),
    }),
    msg: Type.String({ description: 'a human-readable explanation' }),
  },
  { description: 'failure' },
)

/** The error answers every route may give, for the OpenAPI document and the serializer. */
export const errorResponses = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope }

export const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 in UTC (Z)' })
export const NullableDateTime = Type.Union([DateTime, Type.Null()])
