import { Type } from '@sinclair/typebox'
import type { TSchema } from '@sinclair/typebox'
import { SETTING_SPECS, type Settings as SettingValues } from '../../domain/settings'
import { ACTION_NAMES, ROLES } from '../../domain/operators'
import { ACTOR_KINDS, OUTCOMES, TARGET_KINDS } from '../../domain/audit'
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
const ApiToken = component(
  'ApiToken',
  Type.Object({
    tokenId: Id,
    prefix: Type.Union([Type.String(), Type.Null()], {
      description: 'its first 12 characters (trk_ and 8 more), to tell it apart; null for a token issued before prefixes were kept',
    }),
    createdAt: DateTime,
    lastUsedAt: Type.Union([DateTime, Type.Null()], { description: 'its last use, to the minute; null: never used' }),
    revokedAt: NullableDateTime,
  }),
)

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

export const OperatorParams = Type.Object({ operatorId: Id })
const Role = stringEnum(ROLES, { description: 'admin: everything; support: read, refresh, stop, redeliver; viewer: read only' })

export const CreateOperatorBody = Type.Object(
  {
    email: Type.String({ maxLength: 254, examples: ['ops@example.com'] }),
    role: Role,
    password: Type.String({ minLength: 12, maxLength: 256, description: 'at least 12 characters; stored only as its scrypt hash' }),
  },
  { additionalProperties: false },
)
export const OperatorPatch = Type.Object(
  {
    role: Type.Optional(Role),
    disabled: Type.Optional(Type.Boolean({ description: 'true ends their sessions at once and refuses their sign-in' })),
    password: Type.Optional(Type.String({ minLength: 12, maxLength: 256, description: 'a new password (a forgotten one); their sessions end' })),
  },
  { additionalProperties: false, minProperties: 1 },
)
const Operator = component(
  'Operator',
  Type.Object({
    operatorId: Id,
    email: Type.String(),
    role: Role,
    createdAt: DateTime,
    disabledAt: NullableDateTime,
    sessions: Type.Integer({ minimum: 0, description: 'sessions live now' }),
  }),
)
export const OperatorAnswer = envelope(ref(Operator), 'the operator')
export const OperatorList = envelope(Type.Object({ operators: Type.Array(ref(Operator)) }), 'every operator')

export const AUDIT_LIMIT = { min: 1, max: 200, default: 50 }
export const AuditQuery = Type.Object(
  {
    operatorId: Type.Optional(Id),
    actorKind: Type.Optional(stringEnum(ACTOR_KINDS)),
    action: Type.Optional(stringEnum(ACTION_NAMES)),
    targetKind: Type.Optional(stringEnum(TARGET_KINDS)),
    targetId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    since: Type.Optional({ ...Type.String({ format: 'date-time' }), description: 'inclusive' }),
    until: Type.Optional({ ...Type.String({ format: 'date-time' }), description: 'exclusive' }),
    limit: Type.Optional(Type.Integer({ minimum: AUDIT_LIMIT.min, maximum: AUDIT_LIMIT.max, description: `default ${AUDIT_LIMIT.default}` })),
    cursor: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'nextCursor of the previous page, with the same filters' })),
  },
  { description: 'filters combine with AND; newest first' },
)
const AuditEntry = component(
  'AuditEntry',
  Type.Object({
    id: Id,
    at: DateTime,
    actorKind: stringEnum(ACTOR_KINDS),
    operatorId: Type.Union([Id, Type.Null()]),
    actor: Type.String({ description: "the operator's email, 'admin token' or 'command line'" }),
    action: stringEnum(ACTION_NAMES),
    targetKind: Type.Union([stringEnum(TARGET_KINDS), Type.Null()]),
    targetId: Type.Union([Type.String(), Type.Null()]),
    address: Type.Union([Type.String(), Type.Null()], { description: 'the client address the action came from' }),
    outcome: stringEnum(OUTCOMES, {
      description: 'ok; refused (the service said no, with detail.reason); denied (the role may not); failed (an error of ours)',
    }),
    detail: Type.Record(Type.String(), Type.Unknown(), { description: 'what was changed: ids, names, values of settings; never a secret' }),
  }),
)
export const AuditPage = envelope(
  Type.Object({ entries: Type.Array(ref(AuditEntry)), nextCursor: Type.Union([Type.String(), Type.Null()]) }),
  'a page of the audit trail, newest first',
)
