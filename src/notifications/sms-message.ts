import { label, TRIGGER_HEADLINES } from '../domain/customer-labels'
import { expectedText } from '../domain/customer-time'
import { senderName, type Trigger } from '../domain/notifications'
import type { TrackingPage } from '../domain/tracking-page'

/**
 * A notification text (docs/notifications.md, "SMS"): one short message per trigger in the
 * recipient's language: the shop's name, the milestone in words, the expected delivery while
 * there is one, the page's link, and how to stop them. Control characters and line breaks of the
 * shop's name are spaces: the text is one paragraph.
 */
export function renderSms(page: TrackingPage, trigger: Trigger, shopName: string | null, pageUrl: string): string {
  const { language } = page
  const shop = senderName(shopName, page)
  const eta = trigger === 'delivered' ? '' : expectedText(page)
  const text = [
    `${shop}: ${TRIGGER_HEADLINES[language][trigger]}.`,
    eta ? `${label(language, 'expected')}: ${eta}.` : '',
    label(language, 'smsTrack', { url: pageUrl }),
    label(language, 'smsStop'),
  ]
    .filter((part) => part !== '')
    .join(' ')
  // A typographic apostrophe is outside GSM's alphabet: it alone would make every segment 67 characters, not 153.
  return text.replaceAll('\u2019', "'")
}
