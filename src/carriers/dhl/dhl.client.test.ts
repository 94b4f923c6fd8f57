import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CarrierError } from '../carrier'
import { storyWalk } from '../../../test/support/story-walk'
import { serviceOf } from './dhl.formats'
import { DHL } from './dhl.plugin'

// What is DHL's own beyond the stories every carrier walks (carrier-stories.test.ts): its key,
// the offsets of its events, the service a number names. The simulator enforces the key given here.
const walker = storyWalk({ credentials: { [DHL.simulator.path]: { apiKey: 'key-ok' } } })
beforeAll(() => walker.start())
afterAll(() => walker.stop())

describe('the DHL client', () => {
  it("keeps the offsets DHL wrote as the events' own", async () => {
    const [first] = await walker.walk(walker.adapter(DHL, { apiKey: 'key-ok' }), '00340434292135100124', 1)
    expect(first!.found && first!.snapshot.events[0]!.utcOffset).toBe('-05:00')
  })

  it('says a wrong key is the key, and waits after a 429', async () => {
    const wrong = walker.adapter(DHL, { apiKey: 'wrong' })
    await expect(wrong.fetch(['00340434292135100124'])).rejects.toMatchObject({ failure: 'unauthorized', message: expect.stringContaining('DHL_API_KEY') })
    const error = await walker
      .adapter(DHL, { apiKey: 'key-ok' })
      .fetch(['F429123456785DE'])
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CarrierError)
    expect(error).toMatchObject({ failure: 'rate_limited' })
  })

  it('tells DHL the service a number’s format names', () => {
    expect(serviceOf('9750874965')).toBe('express')
    expect(serviceOf('JJD0099999999')).toBe('express')
    expect(serviceOf('00340434292135100124')).toBe('parcel-de')
    expect(serviceOf('RR123456785DE')).toBe('parcel-de')
    expect(serviceOf('GM2951173225174494')).toBe('ecommerce')
    expect(serviceOf('470800204932')).toBeUndefined()
  })
})
