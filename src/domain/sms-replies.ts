/**
 * What the SMS provider tells of a text after it took it, and what the customer replies
 * (docs/notifications.md, "SMS"). Pure.
 */

/**
 * Twilio's message statuses in the order a text goes through them: a callback that arrives late
 * (`sent` after `delivered`) never takes a text back. The last rank is the end, whichever it is.
 */
const RANKS: Readonly<Record<string, number>> = {
  accepted: 1,
  scheduled: 1,
  queued: 1,
  sending: 2,
  sent: 3,
  delivered: 4,
  undelivered: 4,
  failed: 4,
  canceled: 4,
  read: 5,
}
export const PROVIDER_STATUSES = Object.keys(RANKS)

/** A status's place in a text's life; undefined for one this service does not know (ignored). */
export const providerRank = (status: string): number | undefined => RANKS[status]

/** The statuses that say the text did not reach the phone. */
export const providerFailed = (status: string): boolean => status === 'undelivered' || status === 'failed'

/** The words that opt a number out, and back in (Twilio's default opt-out keywords, CTIA's). */
const STOP_WORDS = ['stop', 'stopall', 'stop all', 'unsubscribe', 'cancel', 'end', 'quit', 'optout', 'revoke']
const START_WORDS = ['start', 'unstop', 'yes']

/** What a reply asks: no more texts, texts again, or nothing this service acts on. */
export function replyIntent(body: string): 'stop' | 'start' | undefined {
  const word = body
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, '')
  if (STOP_WORDS.includes(word)) return 'stop'
  if (START_WORDS.includes(word)) return 'start'
  return undefined
}
