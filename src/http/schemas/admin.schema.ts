import { Type } from '@sinclair/typebox'
import { DateTime, NullableDateTime, envelope, errorResponses } from './common.schema'

const Id = Type.String({ pattern: '^[1-9][0-9]{0,14}$', description: 'positive integer' })

export const UserParams = Type.Object({ userId: Id })
export const TokenParams = Type.Object({ userId: Id, tokenId: Id })

export const CreateUserBody = Type.Object({ name: Type.String({ description: '1 to 100 printable characters', examples: ['acme'] }) })

const Settings = Type.Object({ batchMaxItems: Type.Integer({ minimum: 1, maximum: 1000 }) })
export const SettingsPatch = Type.Object({ batchMaxItems: Type.Optional(Type.Unknown({ description: 'integer from 1 to 1000' })) })

export const adminResponses = {
  createUser: {
    200: envelope(
      Type.Object({
        userId: Type.Integer(),
        name: Type.String(),
        token: Type.String({ description: 'shown once; only its hash is stored' }),
        webhookSecret: Type.String({ description: 'whsec_…, the Standard Webhooks signing secret' }),
      }),
      'the new API user with its first token',
    ),
    ...errorResponses,
  },
  listUsers: {
    200: envelope(Type.Object({ users: Type.Array(Type.Object({ userId: Type.Integer(), name: Type.String(), createdAt: DateTime })) }), 'all API users'),
    ...errorResponses,
  },
  issueToken: { 200: envelope(Type.Object({ tokenId: Type.Integer(), token: Type.String() }), 'the new token, shown once'), ...errorResponses },
  listTokens: {
    200: envelope(Type.Object({ tokens: Type.Array(Type.Object({ tokenId: Type.Integer(), createdAt: DateTime, revokedAt: NullableDateTime })) }), "the user's tokens"),
    ...errorResponses,
  },
  revokeToken: { 200: envelope(Type.Object({ tokenId: Type.Integer(), revoked: Type.Literal(true) }), 'revoked'), ...errorResponses },
  rotateSecret: { 200: envelope(Type.Object({ webhookSecret: Type.String() }), 'the new secret; the old one keeps signing for 24 h'), ...errorResponses },
  settings: { 200: envelope(Settings, 'the settings'), ...errorResponses },
}
