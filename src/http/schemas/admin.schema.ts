import { Type } from '@sinclair/typebox'
import type { TSchema } from '@sinclair/typebox'
import { SETTING_SPECS, type Settings as SettingValues } from '../../domain/settings'
import { component, DateTime, envelope, Id, NullableDateTime, ref, stringEnum } from './common.schema'

export const UserParams = Type.Object({ userId: Id })
export const TokenParams = Type.Object({ userId: Id, tokenId: Id })

export const CreateUserBody = Type.Object(
  { name: Type.String({ description: '1 to 100 printable characters, after trimming', examples: ['acme'] }) },
  { additionalProperties: false },
)

/** Every setting, typed with its bounds or values (domain/settings.ts). */
const settingProperties = Object.fromEntries(
  SETTING_SPECS.map(([name, s]) => [
    name,
    s.kind === 'integer'
      ? Type.Integer({ minimum: s.min, maximum: s.max, description: `${s.description} (default ${s.default})` })
      : stringEnum(s.values, { description: `${s.description} (default ${s.default})` }),
  ]),
) as unknown as { [K in keyof SettingValues]: TSchema & { static: SettingValues[K] } }

export const Settings = component(
  'Settings',
  Type.Object(settingProperties, { description: 'the back-office settings; a change applies to the next request on every process' }),
)
export const SettingsPatch = Type.Partial(Type.Object(settingProperties), {
  additionalProperties: false,
  minProperties: 1,
  description: 'the settings to change',
})

const NewApiUser = component(
  'NewApiUser',
  Type.Object({
    userId: Id,
    name: Type.String(),
    token: Type.String({ description: 'shown once; only its hash is stored' }),
    webhookSecret: Type.String({ description: 'whsec_…, the Standard Webhooks signing secret; shown once' }),
  }),
)
const ApiUser = component('ApiUser', Type.Object({ userId: Id, name: Type.String(), createdAt: DateTime }))
const ApiToken = component('ApiToken', Type.Object({ tokenId: Id, createdAt: DateTime, revokedAt: NullableDateTime }))

export const NewUser = envelope(ref(NewApiUser), 'the new API user with its first token')
export const UserList = envelope(Type.Object({ users: Type.Array(ref(ApiUser)) }), 'all API users')
export const NewToken = envelope(Type.Object({ tokenId: Id, token: Type.String({ description: 'shown once' }) }), 'the new token')
export const TokenList = envelope(Type.Object({ tokens: Type.Array(ref(ApiToken)) }), "the user's tokens")
export const Revoked = envelope(Type.Object({ tokenId: Id, revoked: Type.Literal(true) }), 'revoked')
export const RotatedSecret = envelope(
  Type.Object({ webhookSecret: Type.String({ description: 'whsec_…; the old secret keeps signing for 24 h' }) }),
  'the new secret, shown once',
)
export const SettingsAnswer = envelope(ref(Settings), 'the settings')
