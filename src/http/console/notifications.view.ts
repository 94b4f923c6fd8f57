import { html, type Html } from '../../domain/html'
import { TRIGGERS, type NotificationSettings, type Trigger } from '../../domain/notifications'
import { may } from '../../domain/operators'
import { LANGUAGES, type Language } from '../../domain/tracking-page'
import type { MessagePreview, TaskMessage } from '../../services/notification.service'
import { badge, type PageContext } from './layout'
import { dataTable } from './table'

const TRIGGER_NAMES: Record<Trigger, string> = {
  in_transit: 'Shipped (in transit)',
  out_for_delivery: 'Out for delivery',
  available_for_pickup: 'Ready for pickup',
  failed_attempt: 'Delivery attempt failed',
  delivered: 'Delivered',
  exception: 'Problem (exception)',
}

type Channel = keyof NotificationSettings

/** A user's notification settings as a form (the same rules as PUT /openapi/notifications), its suppressed addresses, and the previews' link. */
export function notificationsForm(userId: number, settings: NotificationSettings, suppressed: { email: number; sms: number }, context: PageContext): Html {
  const channel = (name: Channel, title: string) => html`<fieldset><legend>${title}</legend>
  <p><input id="n-${name}-enabled" name="${name}.enabled" type="checkbox" value="true"${settings[name].enabled ? html` checked` : ''}>
  <label for="n-${name}-enabled" class="inline">Send ${name === 'email' ? 'emails' : 'texts'} to the customers of this user's tasks</label></p>
  <p>${TRIGGERS.map(
    (t) => html`<input id="n-${name}-${t}" name="${name}.trigger.${t}" type="checkbox" value="true"${settings[name].triggers.includes(t) ? html` checked` : ''}>
  <label for="n-${name}-${t}" class="inline">${TRIGGER_NAMES[t]}</label> `,
  )}</p></fieldset>`
  const text = (name: 'fromName' | 'replyTo', label: string, type: string, help: string) =>
    html`<p><label for="n-${name}">${label}</label>
    <input id="n-${name}" name="email.${name}" type="${type}" value="${settings.email[name] ?? ''}" aria-describedby="n-${name}-help" maxlength="254">
    <br><span id="n-${name}-help" class="muted">${help}</span></p>`
  return html`<h2 id="notifications">Customer notifications</h2>
<form method="post" action="/console/users/${userId}/notifications" class="card" aria-labelledby="notifications">
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  <fieldset${may(context.role, 'notifications.save') ? '' : html` disabled`}><legend class="skip">Settings</legend>
  ${channel('email', 'Email')}
  ${text('fromName', 'Sender name', 'text', "the name the emails and texts come from; empty: the tracking page's shop name")}
  ${text('replyTo', 'Reply-To', 'email', "where the customers' replies go; empty: the tracking page's support email")}
  ${channel('sms', 'SMS')}
  <button type="submit">Save the notifications</button></fieldset>
</form>
<p>Addresses this user sends nothing any more (unsubscribed, replied STOP, refused by the relay or Twilio): ${suppressed.email} email, ${suppressed.sms} SMS.
<a href="/console/users/${userId}/notifications/preview">Preview every message in every language</a></p>`
}

/** A form's fields as settings: a checkbox present is on; empty text is none. */
export function settingsOfForm(form: Record<string, string>): NotificationSettings {
  const optional = (name: string) => (form[name]?.trim() ? form[name]!.trim() : null)
  const channel = (name: Channel) => ({
    enabled: form[`${name}.enabled`] === 'true',
    triggers: TRIGGERS.filter((t) => form[`${name}.trigger.${t}`] === 'true'),
  })
  return { email: { ...channel('email'), fromName: optional('email.fromName'), replyTo: optional('email.replyTo') }, sms: channel('sms') }
}

/** The previews' page: every trigger and language as links, and the one chosen as it would be sent. */
export function previewView(userId: number, trigger: Trigger, language: Language, preview: MessagePreview): Html {
  const base = `/console/users/${userId}/notifications/preview`
  return html`<p><a href="/console/users/${userId}#notifications">Back to the user</a>. The sample parcel with this user's branding and settings; links point nowhere.</p>
<nav aria-label="Messages" class="card">${TRIGGERS.map(
    (t) =>
      html`<p><strong>${TRIGGER_NAMES[t]}</strong>: ${LANGUAGES.map((l) =>
        t === trigger && l === language ? html`<span aria-current="page">${l}</span> ` : html`<a href="${base}?trigger=${t}&amp;language=${l}">${l}</a> `,
      )}</p>`,
  )}</nav>
<h2>Email</h2>
<dl class="card">
  <dt>From</dt><dd>${preview.from}</dd>
  <dt>Reply-To</dt><dd>${preview.replyTo ?? '—'}</dd>
  <dt>Subject</dt><dd>${preview.subject}</dd>
  <dt>List-Unsubscribe</dt><dd>&lt;…/u/{token}&gt;, with List-Unsubscribe-Post: List-Unsubscribe=One-Click</dd>
</dl>
<iframe title="The email's HTML" src="${base}.html?trigger=${trigger}&amp;language=${language}" class="email-preview" sandbox></iframe>
<details><summary>The plain-text part</summary><pre>${preview.text}</pre></details>
<h2>SMS</h2>
<p class="card">${preview.sms}</p>
<p class="muted">${[...preview.sms].length} characters.</p>`
}

/** A task's messages to its recipient: no address, no text. */
export function taskMessagesView(messages: TaskMessage[]): Html {
  if (messages.length === 0) return html`<h2>Customer notifications</h2><p class="empty">No message to the customer for this task.</p>`
  return html`<h2>Customer notifications</h2>
${dataTable(
  'Customer notifications',
  [
    { label: 'Channel', cell: (m) => m.channel },
    { label: 'Milestone', cell: (m) => TRIGGER_NAMES[m.trigger] },
    { label: 'State', cell: (m) => html`${badge(m.status)} ${m.attempts} attempt${m.attempts === 1 ? '' : 's'}` },
    { label: 'Sent', cell: (m) => m.sentAt ?? '—' },
    { label: 'Error', cell: (m) => m.error || '—', className: 'url' },
  ],
  messages,
)}`
}
