import { MUST } from './errors'

/**
 * An email address as the service takes one (a customer's, a shop's Reply-To and support address,
 * NOTIFY_FROM), and text that goes into a message's headers: never a line break or a control
 * character, which could start a header of its own.
 */

export const EMAIL_MAX = 254
const LINE_BREAK = /[\r\n\u2028\u2029\u0085]/
const CONTROL = /[\p{Cc}\p{Cf}]/u
// A mailbox as a shop's customer has one: no spaces, quotes, brackets or commas (nothing a header
// could read as a second address or a comment), one @, a dotted domain.
const EMAIL = /^[^\s@<>"'(),;:\\[\]]+@[^\s@<>"'(),;:\\[\]]+\.[^\s@<>"'(),;:\\[\].]+$/

/** Whether text would break a header: a line break or a control character. */
export const unsafeInHeader = (value: string): boolean => LINE_BREAK.test(value) || CONTROL.test(value)

/** Text with its line breaks and control characters as spaces: one line in a header, one paragraph in a text. */
export const oneLine = (text: string): string => text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim()

/** What is wrong with an email address, if anything. */
export function emailProblem(value: string): string | undefined {
  if (unsafeInHeader(value)) return 'must not contain line breaks or control characters'
  if (value.length > EMAIL_MAX) return MUST.atMost(EMAIL_MAX)
  if (!EMAIL.test(value)) return 'must be an email address'
  return undefined
}
