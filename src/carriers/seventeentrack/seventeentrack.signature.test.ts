import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { pushSignature, verifyPushSignature } from './seventeentrack.signature'

const kit = (name: string) => readFileSync(new URL(`../../../test/fixtures/carriers/17track/${name}`, import.meta.url))
const examples = JSON.parse(kit('push-signature.json').toString('utf8')) as {
  apiKey: string
  examples: { rawBody?: string; rawBodyFile?: string; sign: string }[]
  mustFail: { sign?: string; signOfMinified?: string }[]
}

describe('the 17TRACK push signature', () => {
  const bodyOf = (example: { rawBody?: string; rawBodyFile?: string }) =>
    example.rawBodyFile ? kit(example.rawBodyFile) : Buffer.from(example.rawBody!, 'utf8')

  it.each(examples.examples.map((e, i) => [i, e] as const))('verifies the kit’s worked example %i over the raw bytes', (_i, example) => {
    expect(pushSignature(bodyOf(example), examples.apiKey)).toBe(example.sign)
    expect(verifyPushSignature(bodyOf(example), example.sign, examples.apiKey)).toBe(true)
    // Header values are compared without regard to case.
    expect(verifyPushSignature(bodyOf(example), example.sign.toUpperCase(), examples.apiKey)).toBe(true)
  })

  it('refuses the kit’s mistakes: another key, no "/", an HMAC, the body re-serialised', () => {
    const small = bodyOf(examples.examples[0]!)
    for (const mistake of examples.mustFail.slice(1)) expect(verifyPushSignature(small, mistake.sign, examples.apiKey)).toBe(false)
    const official = kit('push-tracking-updated-official-example.json')
    const minified = Buffer.from(JSON.stringify(JSON.parse(official.toString('utf8'))))
    expect(verifyPushSignature(minified, examples.examples[2]!.sign, examples.apiKey)).toBe(false)
    expect(pushSignature(minified, examples.apiKey)).toBe(examples.mustFail[0]!.signOfMinified)
  })

  it('refuses a missing, short or non-hex sign without throwing', () => {
    const small = bodyOf(examples.examples[0]!)
    for (const sign of [undefined, '', 'abc', ['a'], 'z'.repeat(64), `${examples.examples[0]!.sign}00`])
      expect(verifyPushSignature(small, sign, examples.apiKey)).toBe(false)
  })
})
