import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { MILESTONES, type Milestone } from '../../domain/milestones'
import { lookupsFromAnswer } from './laposte.mapper'
import { LAPOSTE_STATUSES, timelineMeaning } from './laposte.statuses'

// La Poste's recorded answers (test/fixtures/carriers/laposte: a real Colissimo FR → Brazil,
// delivered; the error envelopes) and its code table, with each trap of its kit.
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../../test/fixtures/carriers/laposte/${name}`, import.meta.url), 'utf8'))
const real = fixture('response-colissimo-international-delivered-real.json') as Record<string, unknown>[]
const element = real[0]!
const NUMBER = 'EW112720413FR'

function found(asked: string[], body: unknown, number = asked[0]!) {
  const lookup = lookupsFromAnswer(asked, body).get(number)
  if (!lookup?.found) throw new Error(`expected ${number} to be found, got ${JSON.stringify(lookup)}`)
  return lookup.snapshot
}

/** The real element with its shipment changed by `change`. */
function variant(change: (shipment: Record<string, unknown>) => void, id = NUMBER): Record<string, unknown> {
  const copy = structuredClone(element) as { shipment: Record<string, unknown> }
  copy.shipment.idShip = id
  change(copy.shipment)
  return copy
}

describe('a real Colissimo answer (FR → Brazil, delivered)', () => {
  const s = found([NUMBER], real)

  it('is delivered by its newest event, DI1, with La Poste’s words', () => {
    expect(s).toMatchObject({ standardStatus: 'delivered', milestone: 'delivered', rawStatusCode: 'DI1', carrierStatus: 'Votre colis est livré.' })
  })

  it('keeps every event oldest first, with its code and label, and no place (La Poste gives none)', () => {
    expect(s.events.map((e) => e.eventCode)).toEqual(['DR1', 'PC1', 'ET1', 'ET1', 'ET2', 'ET3', 'ET1', 'MD2', 'DI1'])
    expect(s.events.map((e) => e.milestone)).toEqual([
      'info_received',
      'in_transit',
      'in_transit',
      'in_transit',
      'in_transit',
      'in_transit',
      'in_transit',
      'out_for_delivery',
      'delivered',
    ])
    // Two ET1 with different labels: keyed on the code, the label kept as the description.
    expect(new Set(s.events.filter((e) => e.eventCode === 'ET1').map((e) => e.description)).size).toBe(2)
    expect(s.events.every((e) => e.city === '' && e.country === '' && e.postalCode === '')).toBe(true)
  })

  it('reads each time as the instant La Poste wrote, but gives no local time: France’s offset on a scan in Brazil is not the scan’s', () => {
    expect(s.events.at(-1)!.eventTime.toISOString()).toBe('2023-03-09T08:38:00.000Z')
    expect(s.events[0]!.eventTime.toISOString()).toBe('2023-02-17T13:41:00.000Z')
    expect(s.events.every((e) => e.utcOffset === null)).toBe(true)
  })

  it('takes the countries from contextData, and no ETA once final (estimDate is then the delivery itself)', () => {
    expect(s.originAddress).toMatchObject({ country: 'FR' })
    expect(s.destinationAddress).toMatchObject({ country: 'BR' })
    expect(s.estimatedDeliveryAt).toBeNull()
    expect(s.proofOfDelivery).toBeNull()
  })
})

describe('the traps of its kit', () => {
  it('reads one number answered as a bare object as it reads the array', () => {
    expect(found([NUMBER], element)).toEqual(found([NUMBER], real))
  })

  it('decides each element by its own returnCode, and matches elements to numbers by idShip', () => {
    const other = 'CB819093788FR'
    const invalid = 'AAAAAAAAAAAAAAAAAAAAAAA'
    const body = [
      { lang: 'fr_FR', scope: 'open', returnCode: 404, returnMessage: 'introuvable', idShip: other },
      { lang: 'fr_FR', scope: 'open', returnCode: 400, returnMessage: 'Le numéro que vous avez saisi n’est pas valide.', idShip: invalid },
      element,
    ]
    const lookups = lookupsFromAnswer([other, NUMBER, invalid], body)
    expect(lookups.get(other)).toEqual({ found: false, reason: 'returnCode 404' })
    expect(lookups.get(invalid)).toEqual({ found: false, reason: 'returnCode 400 (not a number La Poste can track)' })
    expect(lookups.get(NUMBER)).toMatchObject({ found: true, snapshot: { standardStatus: 'delivered' } })
  })

  it('reads the real 400 envelope as a number La Poste cannot track', () => {
    const body = (fixture('error-responses.json') as Record<string, { body: Record<string, unknown> }>).track_400_invalid_number!.body
    expect(lookupsFromAnswer(['123'], { ...body, idShip: '123' }).get('123')).toMatchObject({ found: false })
    // Its idShip is not the number asked: never attributed to it.
    expect(lookupsFromAnswer(['123'], body).size).toBe(0)
  })

  it('never gives one number’s shipment to another', () => {
    expect(lookupsFromAnswer(['6Y11138937441'], real).size).toBe(0)
  })

  it('matches a number asked with spaces or in lower case', () => {
    expect(found(['ew 112720413 fr'], real).rawStatusCode).toBe('DI1')
  })

  it('sorts events by time whatever their order, the newest setting the status', () => {
    const shuffled = variant((s) => {
      s.event = [...(s.event as unknown[])].reverse()
    })
    expect(found([NUMBER], [shuffled])).toMatchObject({ rawStatusCode: 'DI1', standardStatus: 'delivered' })
  })

  it('reads DI2 (delivered to the sender) as a return, never a delivery', () => {
    const back = variant((s) => {
      ;(s.event as Record<string, unknown>[])[0] = { code: 'DI2', label: 'Votre colis a été distribué à l’expéditeur.', date: '2023-03-09T09:38:00+01:00' }
    })
    const s = found([NUMBER], [back])
    expect(s).toMatchObject({ standardStatus: 'returned', milestone: 'returned' })
    expect(s.events.filter((e) => e.milestone === 'delivered')).toEqual([])
  })

  it('falls back to the highest timeline step reached for an unknown newest code, else keeps the status', () => {
    const unknown = variant((s) => {
      ;(s.event as Record<string, unknown>[])[0] = { code: 'ZZ9', label: '?', date: '2023-03-09T09:38:00+01:00' }
    })
    expect(found([NUMBER], [unknown])).toMatchObject({ standardStatus: 'delivered', milestone: 'delivered', rawStatusCode: 'ZZ9' })
    const early = variant((s) => {
      s.event = [{ code: 'ZZ9', label: '?', date: '2023-02-17T14:41:00+01:00' }]
      s.timeline = (s.timeline as Record<string, unknown>[]).map((step) => ({ ...step, status: false }))
    })
    expect(found([NUMBER], [early])).toMatchObject({ standardStatus: null, milestone: null })
  })

  it('gives the local time of a parcel that never left France, and an estimate before the end', () => {
    const domestic = variant((s) => {
      s.contextData = { originCountry: 'FR', arrivalCountry: 'FR' }
      s.isFinal = false
      s.event = (s.event as unknown[]).slice(2)
      s.estimDate = '2023-03-10T18:00:00+01:00'
    })
    const s = found([NUMBER], [domestic])
    expect(s.events.at(-1)).toMatchObject({ utcOffset: '+01:00' })
    expect(s.estimatedDeliveryAt?.toISOString()).toBe('2023-03-10T17:00:00.000Z')
  })

  it('skips an event whose time it cannot read, and survives garbage', () => {
    const bad = variant((s) => {
      ;(s.event as Record<string, unknown>[])[1] = { code: 'MD2', label: 'x', date: 'hier' }
    })
    expect(found([NUMBER], [bad]).events).toHaveLength(8)
    for (const garbage of [null, 'x', 42, [null], [{ returnCode: 'abc' }], { shipment: 'x' }]) {
      expect(() => lookupsFromAnswer([NUMBER], garbage)).not.toThrow()
    }
  })
})

describe('the status table', () => {
  const kit = fixture('status-codes.json') as { codes: Record<string, { standardStatus: string; milestone: Milestone }> }

  it.each(Object.entries(kit.codes))('maps %s as the kit does', (code, entry) => {
    expect(LAPOSTE_STATUSES.meaning(code)).toEqual({ status: entry.standardStatus, milestone: entry.milestone })
    expect(MILESTONES[entry.milestone]).toBe(entry.standardStatus)
  })

  it('holds no code the kit does not', () => {
    expect(LAPOSTE_STATUSES.codes.sort()).toEqual(Object.keys(kit.codes).sort())
  })

  it('maps the timeline steps as the kit does', () => {
    const steps = (fixture('status-codes.json') as { timelineSteps: Record<string, { standardStatus: string; milestone: Milestone }> }).timelineSteps
    for (const id of [1, 2, 3, 4, 5])
      expect(timelineMeaning([id]), `step ${id}`).toEqual({ status: steps[id]!.standardStatus, milestone: steps[id]!.milestone })
    expect(timelineMeaning([])).toBeNull()
  })
})
