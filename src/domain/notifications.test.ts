import { describe, expect, it } from 'vitest'
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  messageTrigger,
  parseRecipient,
  settingsProblems,
  STALE_AFTER_MS,
  TRIGGERS,
  type NotificationSettings,
} from './notifications'

const NOW = new Date('2026-11-29T12:00:00Z')
const on: NotificationSettings = { ...DEFAULT_NOTIFICATION_SETTINGS, email: { ...DEFAULT_NOTIFICATION_SETTINGS.email, enabled: true } }
const fresh = new Date(NOW.getTime() - 3_600_000)

describe('which change sends an email', () => {
  it("sends at each of the user's triggers, and nothing when email is off or the milestone is not one", () => {
    for (const trigger of TRIGGERS)
      expect(messageTrigger('email', { previous: 'info_received', milestone: trigger, newestEventAt: fresh }, on, NOW)).toBe(
        trigger === 'delivered' ? undefined : trigger,
      )
    expect(messageTrigger('email', { previous: 'in_transit', milestone: 'delivered', newestEventAt: fresh }, on, NOW)).toBe('delivered')
    expect(
      messageTrigger('email', { previous: 'in_transit', milestone: 'delivered', newestEventAt: fresh }, DEFAULT_NOTIFICATION_SETTINGS, NOW),
    ).toBeUndefined()
    expect(messageTrigger('email', { previous: 'pending', milestone: 'info_received', newestEventAt: fresh }, on, NOW)).toBeUndefined()
    expect(messageTrigger('email', { previous: 'in_transit', milestone: 'returned', newestEventAt: fresh }, on, NOW)).toBeUndefined()
    const onlyDelivered = { ...on, email: { ...on.email, triggers: ['delivered' as const] } }
    expect(messageTrigger('email', { previous: 'in_transit', milestone: 'out_for_delivery', newestEventAt: fresh }, onlyDelivered, NOW)).toBeUndefined()
    expect(messageTrigger('email', { previous: 'out_for_delivery', milestone: 'delivered', newestEventAt: fresh }, onlyDelivered, NOW)).toBe('delivered')
  })

  it('sends nothing for a task first seen at its end, nor for news older than seven days', () => {
    expect(messageTrigger('email', { previous: 'pending', milestone: 'delivered', newestEventAt: fresh }, on, NOW)).toBeUndefined()
    expect(messageTrigger('email', { previous: 'info_received', milestone: 'delivered', newestEventAt: fresh }, on, NOW)).toBeUndefined()
    // First seen in transit is news: the parcel is still coming.
    expect(messageTrigger('email', { previous: 'pending', milestone: 'in_transit', newestEventAt: fresh }, on, NOW)).toBe('in_transit')
    const old = new Date(NOW.getTime() - STALE_AFTER_MS - 1)
    expect(messageTrigger('email', { previous: 'in_transit', milestone: 'out_for_delivery', newestEventAt: old }, on, NOW)).toBeUndefined()
    const sevenDays = new Date(NOW.getTime() - STALE_AFTER_MS)
    expect(messageTrigger('email', { previous: 'in_transit', milestone: 'out_for_delivery', newestEventAt: sevenDays }, on, NOW)).toBe('out_for_delivery')
  })
})

describe('which change sends a text', () => {
  it("follows the SMS channel's own switch and triggers, apart from the email's", () => {
    const smsOnly: NotificationSettings = { ...DEFAULT_NOTIFICATION_SETTINGS, sms: { enabled: true, triggers: ['out_for_delivery'] } }
    const change = { previous: 'in_transit' as const, milestone: 'out_for_delivery' as const, newestEventAt: fresh }
    expect(messageTrigger('sms', change, smsOnly, NOW)).toBe('out_for_delivery')
    expect(messageTrigger('email', change, smsOnly, NOW)).toBeUndefined()
    expect(messageTrigger('sms', { ...change, milestone: 'delivered' }, smsOnly, NOW)).toBeUndefined()
    expect(messageTrigger('sms', change, on, NOW)).toBeUndefined()
  })
})

describe('a recipient', () => {
  it('is an email or a phone, its language one of four (else the shop default), its domain lower-cased', () => {
    expect(parseRecipient({ email: ' Ana@Example.COM ', name: 'Ana', language: 'fr-CA' })).toEqual({
      ok: true,
      value: { email: 'Ana@example.com', phone: null, name: 'Ana', language: 'fr' },
    })
    expect(parseRecipient({ phone: '+491701234567', language: 'pt' })).toEqual({
      ok: true,
      value: { email: null, phone: '+491701234567', name: null, language: null },
    })
    expect(parseRecipient({ name: 'Ana' })).toEqual({ ok: false, details: [{ field: 'recipient', message: 'must hold an email or a phone' }] })
  })

  it('refuses line breaks, control characters, what is not an address or a number, and names over 100 characters', () => {
    const fields = (input: Parameters<typeof parseRecipient>[0]) => {
      const parsed = parseRecipient(input)
      return parsed.ok ? [] : parsed.details.map((d) => d.field)
    }
    expect(fields({ email: 'a@example.com\r\nBcc: b@example.com' })).toEqual(['recipient.email'])
    expect(fields({ email: 'a@example.com', name: 'Ana\nBcc: b@example.com' })).toEqual(['recipient.name'])
    expect(fields({ email: 'a@example.com', name: 'Ana\u0000' })).toEqual(['recipient.name'])
    expect(fields({ email: 'two@example.com, three@example.com' })).toEqual(['recipient.email'])
    expect(fields({ email: '"Ana" <a@example.com>' })).toEqual(['recipient.email'])
    expect(fields({ email: `${'a'.repeat(245)}@example.com` })).toEqual(['recipient.email'])
    expect(fields({ phone: '01701234567' })).toEqual(['recipient.phone'])
    expect(fields({ email: 'a@example.com', name: 'x'.repeat(101) })).toEqual(['recipient.name'])
  })

  it("the shop's sender name and Reply-To are held to the same rules", () => {
    const settings = { ...on, email: { ...on.email, fromName: 'Shop\r\nBcc: x@example.com', replyTo: 'not an address' } }
    expect(settingsProblems(settings).map((p) => p.field)).toEqual(['email.fromName', 'email.replyTo'])
    expect(settingsProblems(on)).toEqual([])
  })
})
