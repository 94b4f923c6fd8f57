import { Type } from '@sinclair/typebox'
import { AUTO_CORRECT_HOURS_MAX } from '../../domain/account-settings'
import { envelope } from './common.schema'

const autoCorrect = {
  description: 'try a stuck pending task with the other carriers its number may belong to (docs/api.md, "Auto-correct"); null: the service\'s default',
}
const hours = {
  description:
    "how long a task stays pending, unknown to its carrier, before auto-correct tries the others; a decimal number of hours above 0 (0.01 is 36 s), at most a year; null: the service's default",
}
const Hours = Type.Number({ exclusiveMinimum: 0, maximum: AUTO_CORRECT_HOURS_MAX })

export const AccountSettingsBody = Type.Object(
  {
    carrierAutoCorrect: Type.Union([Type.Boolean(), Type.Null()], autoCorrect),
    carrierAutoCorrectHours: Type.Union([Hours, Type.Null()], hours),
  },
  { additionalProperties: false, description: "the caller's own settings; every member is given on PUT" },
)

export const AccountSettingsAnswer = envelope(
  Type.Object({
    carrierAutoCorrect: Type.Union([Type.Boolean(), Type.Null()], autoCorrect),
    carrierAutoCorrectHours: Type.Union([Type.Number(), Type.Null()], hours),
    effective: Type.Object(
      { carrierAutoCorrect: Type.Boolean(), carrierAutoCorrectHours: Type.Number() },
      { description: "what holds for the caller: its own choice, else the service's default" },
    ),
  }),
  "the caller's settings",
)
