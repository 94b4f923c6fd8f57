import { Type } from '@sinclair/typebox'
import { CHANNELS } from '../../domain/outbox'
import { EMAIL_MAX } from '../../domain/email-address'
import { NAME_MAX, TRIGGERS } from '../../domain/notifications'
import { LANGUAGES } from '../../domain/tracking-page'
import { WEBHOOK_STATUSES } from '../../domain/statuses'
import { component, envelope, NullableDateTime, ref, stringEnum } from './common.schema'
import { FullTask } from './task.schema'

/** The customer's notifications (docs/notifications.md): a user's settings, a task's recipient and its messages. */

const Triggers = Type.Array(stringEnum(TRIGGERS), {
  uniqueItems: true,
  description: 'the milestones that send a message; in_transit is "shipped"',
})

export const NotificationSettingsSchema = component(
  'NotificationSettings',
  Type.Object(
    {
      email: Type.Object(
        {
          enabled: Type.Boolean(),
          triggers: Triggers,
          fromName: Type.Union([Type.String({ maxLength: NAME_MAX }), Type.Null()], {
            description: "the sender's display name (null: the tracking page's displayName); the address is the service's NOTIFY_FROM",
          }),
          replyTo: Type.Union([Type.String({ maxLength: EMAIL_MAX }), Type.Null()], {
            description: "where replies go (null: the tracking page's supportEmail)",
          }),
        },
        { additionalProperties: false },
      ),
      sms: Type.Object({ enabled: Type.Boolean(), triggers: Triggers }, { additionalProperties: false }),
    },
    { additionalProperties: false, description: 'what the customers of the caller are told, by channel; every channel off by default' },
  ),
)

export const NotificationSettingsAnswer = envelope(ref(NotificationSettingsSchema), "the caller's notification settings")

export const Recipient = component(
  'Recipient',
  Type.Object({
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
    language: Type.Union([stringEnum(LANGUAGES), Type.Null()], { description: "null: the shop's default language" }),
  }),
)

export const RecipientAnswer = envelope(ref(Recipient), "the task's recipient")
export const RecipientRemoved = envelope(Type.Object({ recipient: Type.Null() }), "the task's recipient, removed")

export const TaskMessage = component(
  'TaskMessage',
  Type.Object({
    channel: stringEnum(CHANNELS.filter((c) => c !== 'webhook')),
    trigger: stringEnum(TRIGGERS),
    status: stringEnum(WEBHOOK_STATUSES),
    attempts: Type.Integer({ minimum: 0 }),
    sentAt: NullableDateTime,
    error: Type.String({ description: '"" unless its last attempt failed' }),
  }),
)

/** What GET …/{taskId} adds to the full task: never in the query answer, the list or a webhook. */
const TaskNotificationMembers = Type.Object({
  recipient: Type.Union([ref(Recipient), Type.Null()]),
  notifications: Type.Array(ref(TaskMessage), { description: "the messages sent (or to be sent) to the task's recipient, oldest first" }),
})

export const FullTaskWithRecipientAnswer = envelope(Type.Intersect([ref(FullTask), TaskNotificationMembers]), 'the task, its recipient and their messages')

export const UserNotificationsAnswer = envelope(
  Type.Object({
    settings: ref(NotificationSettingsSchema),
    suppressedAddresses: Type.Object(
      { email: Type.Integer({ minimum: 0 }), sms: Type.Integer({ minimum: 0 }) },
      { description: 'the addresses the user sends nothing any more: unsubscribed, or refused for good by the relay' },
    ),
  }),
  "a user's notification settings",
)
