import { describe, expect, it } from 'vitest'
import { phoneZones } from './phone-zones'

describe("a phone number's time zones", () => {
  it("are its prefix's, from libphonenumber's metadata", async () => {
    expect(await phoneZones('+4917012345678')).toEqual(['Europe/Berlin'])
    expect(await phoneZones('+447700900123')).toEqual(expect.arrayContaining(['Europe/London']))
    expect(await phoneZones('+18085550123')).toEqual(['Pacific/Honolulu'])
    expect(await phoneZones('+14155550123')).toEqual(['America/Los_Angeles'])
    expect(await phoneZones('+79161234567')).toEqual(['Europe/Moscow'])
    expect(await phoneZones('+61412345678')).toEqual(['Australia/Sydney'])
    // Twilio's test numbers: anywhere in the North American numbering plan.
    expect((await phoneZones('+15005550006')).length).toBeGreaterThan(20)
    expect(await phoneZones('+999')).toEqual([])
  })
})
