import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { MILESTONES, type Milestone } from '../../domain/milestones'
import { lookupFromDetail, readAnswer } from './canadapost.mapper'
import { CANADAPOST_NO_STATUS, CANADAPOST_STATUSES, identifierOf } from './canadapost.statuses'

// Canada Post's recorded answers (test/fixtures/carriers/canadapost: its official samples in
// English and French, a pickup at a post office then a delivery, karrio's copy without a
// namespace, a PIN with only the shipper's information, not found) and its code table, with each
// trap of its kit.
const xml = (name: string) => readFileSync(new URL(`../../../test/fixtures/carriers/canadapost/${name}`, import.meta.url), 'utf8')

function found(name: string, pin: string) {
  const answer = readAnswer(xml(name))
  if (answer?.kind !== 'detail') throw new Error(`expected a detail in ${name}`)
  const lookup = lookupFromDetail(pin, answer.detail)
  if (!lookup?.found) throw new Error(`expected ${pin} to be found`)
  return lookup.snapshot
}

describe('the official sample, delivered twice', () => {
  const s = found('response-delivered-official-en.xml', '1371134583769923')

  it('is delivered by the newest delivery, not the first; the signature moves nothing', () => {
    expect(s).toMatchObject({ standardStatus: 'delivered', milestone: 'delivered', carrierStatus: 'Item successfully delivered' })
    const deliveries = s.events.filter((e) => e.eventCode === '1496').map((e) => e.eventTime.toISOString().slice(0, 10))
    expect(deliveries).toEqual(['2011-02-01', '2011-02-03'])
    expect(s.events.find((e) => e.eventCode === '20')).toMatchObject({ status: '', milestone: '' })
  })

  it('reads the zone’s name as the offset, compares identifiers as numbers, and claims no local time for 11:59:59', () => {
    const out = s.events.find((e) => e.eventCode === '174')!
    expect(out.eventTime.toISOString()).toBe('2011-02-03T13:27:43.000Z')
    expect(out).toMatchObject({ utcOffset: '-05:00', city: 'SAINTE-FOY', state: 'QC', country: 'CA' })
    // The first delivery has its hour (07:59:52); the second is written at 11:59:59.
    expect(s.events.filter((e) => e.eventCode === '1496').map((e) => e.utcOffset)).toEqual(['-05:00', null])
  })

  it('takes the changed expected date as the ETA, the end of that day', () => {
    expect(s.estimatedDeliveryAt?.toISOString()).toBe('2011-02-12T04:59:59.000Z')
  })

  it('gives the proof of delivery Canada Post has: the signatory, the place, a signature image', () => {
    expect(s.proofOfDelivery).toEqual({ signedBy: 'TESTEUR', location: 'SAINTE-FOY', signatureAvailable: true, documentUrl: null })
  })
})

describe('the same in French, with a space before <?xml and text across lines', () => {
  it('reads as the English one does, texts collapsed', () => {
    const fr = found('response-delivered-official-fr.xml', '1371134583769923')
    const en = found('response-delivered-official-en.xml', '1371134583769923')
    expect(fr.events.map((e) => [e.eventCode, e.eventTime.toISOString()])).toEqual(en.events.map((e) => [e.eventCode, e.eventTime.toISOString()]))
    expect(fr.standardStatus).toBe('delivered')
    expect(fr.events.every((e) => !/\s{2}|\n/.test(e.description))).toBe(true)
  })
})

describe('other answers', () => {
  it('a pickup at a post office, then delivered; the final notice is no return', () => {
    const s = found('response-dnc-pickup-then-delivered-official.xml', '1680678172650919')
    expect(s).toMatchObject({ standardStatus: 'delivered', milestone: 'delivered' })
    expect(s.events.find((e) => e.eventCode === '156')).toMatchObject({ milestone: 'available_for_pickup' })
    expect(s.events.find((e) => e.eventCode === '1479')).toMatchObject({ milestone: 'failed_attempt' })
  })

  it('karrio’s copy without any namespace is read too: it stops at the second delivery’s out-for-delivery scan', () => {
    expect(found('response-official-example-karrio.xml', '7023210039414604')).toMatchObject({ standardStatus: 'in_transit', milestone: 'out_for_delivery' })
  })

  it('only the shipper’s information: pending, no ETA (an empty element)', () => {
    expect(found('response-shipper-info-only-no-eta.xml', '8213295707205355')).toMatchObject({
      standardStatus: 'pending',
      milestone: 'info_received',
      estimatedDeliveryAt: null,
    })
  })

  it('not found is message 004; a refused key E002; anything else is no answer', () => {
    expect(readAnswer(xml('response-not-found-004.xml'))).toEqual({ kind: 'messages', messages: [{ code: '004', description: 'No Pin History' }] })
    for (const garbage of ['', '{"json": true}', '<html><body>Error</body></html>', '<tracking-detail><pin>1', 'x'.repeat(1000)]) {
      expect(readAnswer(garbage)).toBeUndefined()
    }
  })

  it('never gives one PIN’s detail to another', () => {
    const answer = readAnswer(xml('response-delivered-official-en.xml'))!
    expect(answer.kind === 'detail' && lookupFromDetail('7023210039414604', answer.detail)).toBeUndefined()
  })

  it('a return, whose identifier is not known, by its text', () => {
    const returned = xml('response-shipper-info-only-no-eta.xml').replace(
      '<event-description>Electronic information submitted by shipper</event-description>',
      '<event-description>Item returned to sender</event-description>',
    )
    const answer = readAnswer(returned)!
    expect(answer.kind === 'detail' && lookupFromDetail('8213295707205355', answer.detail)).toMatchObject({ snapshot: { standardStatus: 'returned' } })
  })
})

describe('the status table', () => {
  const kit = JSON.parse(xml('status-codes.json')) as { codes: Record<string, { standardStatus: string; milestone: Milestone; ignoreForStatus?: boolean }> }

  it.each(Object.entries(kit.codes))('maps %s as the kit does', (code, entry) => {
    expect(CANADAPOST_STATUSES.meaning(identifierOf(code))).toEqual({ status: entry.standardStatus, milestone: entry.milestone })
    expect(MILESTONES[entry.milestone]).toBe(entry.standardStatus)
    expect(CANADAPOST_NO_STATUS.has(identifierOf(code))).toBe(entry.ignoreForStatus === true)
  })

  it('holds no code the kit does not', () => {
    expect(CANADAPOST_STATUSES.codes.sort()).toEqual(Object.keys(kit.codes).map(identifierOf).sort())
  })
})
