import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { autoPick, detectCarriers } from './detection'
import { CARRIERS } from './registry'

// The kits' detection fixtures (test/fixtures/carriers/{ups,usps,dhl,laposte,gls,canadapost}/detection-fixtures.json: valid and
// invalid numbers of every format), then numbers computed here with each rule written out again.
interface Format {
  id: string
  carrierCode: string
  name: string
  confidence: 'high' | 'medium' | 'low'
  valid: { number: string }[]
  invalid: { number: string; why: string }[]
}
const formats = ['ups', 'usps', 'dhl', 'laposte', 'gls', 'canadapost'].flatMap(
  (kit) =>
    (JSON.parse(readFileSync(new URL(`../../test/fixtures/carriers/${kit}/detection-fixtures.json`, import.meta.url), 'utf8')) as { formats: Format[] })
      .formats,
)
const everywhere = () => true
const detect = (number: string) => detectCarriers(number, CARRIERS, everywhere)

describe.each(formats.map((f) => [f.id, f] as const))('%s', (_, format) => {
  it.each(format.valid.map((v) => v.number))(`detects %s as ${format.carrierCode} at ${format.confidence}`, (number) => {
    const candidates = detect(number)
    if (format.confidence === 'high') {
      expect(candidates[0]).toMatchObject({ carrierCode: format.carrierCode, confidence: 'high' })
      expect(candidates.filter((c) => c.carrierCode !== format.carrierCode && c.confidence === 'high')).toEqual([])
    } else {
      // A shape that other carriers' formats may certainly hold too (DHL's 12-digit Identcode is
      // FedEx Express's shape; La Poste's loose 11 to 15 characters, most carriers'): one
      // candidate among them, never picked by AUTO alone.
      expect(candidates).toContainEqual(expect.objectContaining({ carrierCode: format.carrierCode, confidence: format.confidence }))
    }
  })

  // A number invalid for one format may be valid for another of the same carrier at the same
  // confidence (a GLS 14-character card is no 8-character Track ID): that one's test has it.
  const validElsewhere = (number: string) =>
    formats.some((f) => f !== format && f.carrierCode === format.carrierCode && f.confidence === format.confidence && f.valid.some((v) => v.number === number))
  it.each(format.invalid.filter((v) => !validElsewhere(v.number)).map((v) => [v.number, v.why]))(
    `does not detect %s (%s) at ${format.confidence}`,
    (number) => {
      const sameFormat = detect(number).filter((c) => c.carrierCode === format.carrierCode && c.confidence === format.confidence)
      expect(sameFormat).toEqual([])
    },
  )
})

// Each rule, written out independently of src/carriers/check-digits.ts.
const randomDigits = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 10)).join('')
function fedex12(): string {
  const body = randomDigits(11)
  const weights = [3, 1, 7]
  const sum = [...body].reduce((s, d, i) => s + Number(d) * weights[i % 3]!, 0)
  return body + ((sum % 11) % 10)
}
function groundCheck(body14: string): number {
  const sum = [...body14].reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 1 : 3), 0)
  return (10 - (sum % 10)) % 10
}
function ups1Z(): string {
  const alphabet = '0123456789ABCDEFGHJKLMNPRSTUVWXYZ'
  const body = Array.from({ length: 15 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('')
  const value = (c: string) => (/\d/.test(c) ? Number(c) : (c.charCodeAt(0) - 3) % 10)
  const sum = [...body].reduce((s, c, i) => s + value(c) * (i % 2 === 0 ? 1 : 2), 0)
  return `1Z${body}${(10 - (sum % 10)) % 10}`
}
const changeLast = (n: string) => n.slice(0, -1) + ((Number(n.at(-1)) + 1) % 10)

describe('computed numbers', () => {
  const cases: [string, () => string, string][] = [
    ['FedEx 12', fedex12, 'FEDEX'],
    [
      'FedEx 15',
      () => {
        const body = randomDigits(14)
        return body + groundCheck(body)
      },
      'FEDEX',
    ],
    [
      'FedEx 96',
      () => {
        const head = `96${randomDigits(19)}`
        return head + groundCheck(head.slice(7, 21))
      },
      'FEDEX',
    ],
    ['UPS 1Z', ups1Z, 'UPS'],
  ]
  it.each(cases)('%s: 200 numbers each detected high, and low with the last digit changed', (_, make, carrierCode) => {
    for (let i = 0; i < 200; i++) {
      const number = make()
      expect(detect(number)[0], number).toMatchObject({ carrierCode, confidence: 'high' })
      expect(autoPick(detect(number)), number).toBe(carrierCode)
      expect(
        detect(changeLast(number))
          .filter((c) => c.carrierCode === carrierCode)
          .map((c) => c.confidence),
        number,
      ).toEqual(['low'])
    }
  })

  it('matches trimmed and in any case', () => {
    expect(detect('  1z5r89390357567127 ')[0]).toMatchObject({ carrierCode: 'UPS', confidence: 'high' })
    expect(detect('hello')).toEqual([])
  })
})

describe('AUTO', () => {
  it('picks only when exactly one available candidate is certain', () => {
    expect(autoPick(detect('UP2411220001'))).toBeUndefined()
    expect(autoPick(detectCarriers('986578788855', CARRIERS, (code) => code !== 'FEDEX'))).toBeUndefined()
    expect(
      autoPick([
        { carrierCode: 'A', format: 'a', confidence: 'high', available: true },
        { carrierCode: 'B', format: 'b', confidence: 'high', available: true },
      ]),
    ).toBeUndefined()
  })
})

describe('an IMpb number, which FedEx and UPS labels carry too and USPS delivers', () => {
  it.each(['9261290289104185136058', '92748931507708513018050063', '420117419361289691090029427113'])(
    '%s: USPS certain, FedEx and UPS possible; AUTO picks USPS',
    (number) => {
      const candidates = detect(number)
      expect(candidates[0]).toMatchObject({ carrierCode: 'USPS', confidence: 'high' })
      expect(candidates.filter((c) => c.confidence === 'medium').map((c) => c.carrierCode)).toEqual(expect.arrayContaining(['FEDEX', 'UPS']))
      expect(autoPick(candidates)).toBe('USPS')
    },
  )

  it('with USPS unavailable, AUTO picks nothing: the others are only possible', () => {
    expect(autoPick(detectCarriers('9261290289104185136058', CARRIERS, (code) => code !== 'USPS'))).toBeUndefined()
  })

  it('an IMpb with a wrong check digit is no one’s certain number', () => {
    const candidates = detect('9261290289104185136050')
    expect(candidates.filter((c) => c.confidence === 'high')).toEqual([])
    expect(autoPick(candidates)).toBeUndefined()
  })
})

describe('a DHL Paket Identcode, which has FedEx Express’s shape', () => {
  it('is DHL at medium beside FedEx at high when FedEx’s check digit holds too: AUTO picks FedEx only then', () => {
    const candidates = detect('837806095466')
    expect(candidates.map((c) => [c.carrierCode, c.confidence])).toEqual(
      expect.arrayContaining([
        ['FEDEX', 'high'],
        ['DHL', 'medium'],
      ]),
    )
    expect(autoPick(candidates)).toBe('FEDEX')
    expect(autoPick(detect('470800204932'))).toBeUndefined()
  })
})
