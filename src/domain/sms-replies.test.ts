import { describe, expect, it } from 'vitest'
import { providerFailed, providerRank, replyIntent } from './sms-replies'

describe("a customer's reply", () => {
  it('reads the opt-out and opt-in words, whatever their case, and nothing else', () => {
    for (const word of ['STOP', 'stop', ' Stop. ', 'UNSUBSCRIBE', 'cancel', 'END', 'quit', 'STOPALL', 'stop all']) expect(replyIntent(word), word).toBe('stop')
    for (const word of ['START', 'unstop', 'Yes']) expect(replyIntent(word), word).toBe('start')
    for (const word of ['', 'please stop sending', 'where is my parcel?', 'HELP']) expect(replyIntent(word), word).toBeUndefined()
  })
})

describe("the provider's statuses", () => {
  it('go forward only, and name the ones that did not arrive', () => {
    expect(providerRank('queued')! < providerRank('sent')!).toBe(true)
    expect(providerRank('sent')! < providerRank('delivered')!).toBe(true)
    expect(providerRank('undelivered')).toBe(providerRank('delivered'))
    expect(providerRank('something-new')).toBeUndefined()
    expect(['undelivered', 'failed'].every(providerFailed)).toBe(true)
    expect(['sent', 'delivered'].some(providerFailed)).toBe(false)
  })
})
